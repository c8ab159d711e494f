import Foundation
import LineupStore
import Synchronization
import Testing

// Crews ↔ sessions, both sides to-many, each the other's inverse: Core Data's
// NSRelationshipDescription with isToMany on both sides. Deleting either nullifies (its pairs
// go). Notes ↔ labels: a note cascades to its labels, a label denies while it has notes.

final class Crew: ManagedObject {
    @Attribute("name") var name: String?
    @ToMany("sessions", inverse: "crews") var sessions: [CrewSession]
}

final class CrewSession: ManagedObject {
    @Attribute("rating") var rating: Int?
    @ToMany("crews", inverse: "sessions") var crews: [Crew]
}

final class Note: ManagedObject {
    @Attribute("text") var text: String?
    @ToMany("labels", inverse: "notes", deleteRule: .cascade) var labels: [Label]
}

final class Label: ManagedObject {
    @Attribute("name") var name: String?
    @ToMany("notes", inverse: "labels", deleteRule: .deny) var notes: [Note]
}

let manyToManyModel = ManagedObjectModel(Crew.self, CrewSession.self, Note.self, Label.self)

/// `Crew` and `CrewSession` as an earlier version of the model declared them: no relationship.
final class CrewWithoutSessions: ManagedObject {
    override class var entityName: String { "Crew" }
    @Attribute("name") var name: String?
}

final class CrewSessionWithoutCrews: ManagedObject {
    override class var entityName: String { "CrewSession" }
    @Attribute("rating") var rating: Int?
}

/// The tables of the pairs, as the model names them (after the side whose name sorts first).
private let crewPairs = "Z_CrewSession_crews"
private let labelPairs = "Z_Label_notes"

@Suite struct ManyToManyTests {
    private func names(_ crews: [Crew]) -> [String] { crews.map { $0.name ?? "?" } }
    private func ratings(_ sessions: [CrewSession]) -> [Int] { sessions.map { $0.rating ?? -1 } }

    private func crew(_ name: String, in context: ManagedObjectContext) -> Crew {
        let crew = Crew(context: context)
        crew.name = name
        return crew
    }

    private func session(_ rating: Int, in context: ManagedObjectContext) -> CrewSession {
        let session = CrewSession(context: context)
        session.rating = rating
        return session
    }

    @Test func theModelAddsOneJoinEntityForBothSides() {
        let joins = manyToManyModel.entities.filter { $0.name.hasPrefix("Z_") }.map(\.name)
        #expect(joins == [crewPairs, labelPairs])
        #expect(manyToManyModel.entity(named: crewPairs)?.properties.map(\.name) == ["crews", "sessions"])
    }

    @Test(arguments: StoreKind.allCases) func settingEitherSideSetsTheOtherInEveryContextAndOnDisk(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let job = stack.container.newTaskContext(name: "job")
        let (morningID, eveningID, dawnID) = try job.performAndWait {
            let morning = self.crew("morning", in: job)
            let evening = self.crew("evening", in: job)
            let dawn = self.session(1, in: job)
            let noon = self.session(2, in: job)
            morning.sessions = [dawn, noon]
            #expect(names(dawn.crews) == ["morning"], "one side set: the other follows, unsaved")
            #expect(names(noon.crews) == ["morning"])
            noon.crews.append(evening)
            #expect(ratings(evening.sessions) == [2], "the other side set: the first follows")
            #expect(ratings(morning.sessions) == [1, 2])
            morning.sessions.removeAll { $0 === noon }
            #expect(names(noon.crews) == ["evening"])
            morning.sessions.append(dawn)
            #expect(ratings(morning.sessions) == [1], "a pair that exists is not added twice")
            try job.save()
            return (morning.objectID, evening.objectID, dawn.objectID)
        }
        // The parent sees both sides as the child saved them, before anything reaches the disk.
        stack.main.performAndWait {
            let dawn = stack.main.object(with: dawnID) as! CrewSession
            #expect(names(dawn.crews) == ["morning"])
            #expect(ratings((stack.main.object(with: eveningID) as! Crew).sessions) == [2])
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk(crewPairs) == 2)
        let reader = stack.container.newTaskContext(name: "reader")
        reader.performAndWait {
            #expect(ratings((reader.object(with: morningID) as! Crew).sessions) == [1])
            #expect(ratings((reader.object(with: eveningID) as! Crew).sessions) == [2])
            #expect(names((reader.object(with: dawnID) as! CrewSession).crews) == ["morning"])
        }
    }

    @Test(arguments: StoreKind.allCases) func rollbackAndMergesKeepBothSidesTogether(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let seed = stack.container.newTaskContext(name: "seed")
        let (crewID, sessionID) = try seed.performAndWait {
            let crew = self.crew("morning", in: seed)
            crew.sessions = [self.session(4, in: seed)]
            try seed.save()
            return (crew.objectID, crew.sessions[0].objectID)
        }
        try stack.container.flush()

        let job = stack.container.newTaskContext(name: "job")
        job.performAndWait {
            let crew = job.object(with: crewID) as! Crew
            let session = job.object(with: sessionID) as! CrewSession
            session.crews = []
            #expect(crew.sessions.isEmpty)
            job.rollback()
            #expect(ratings(crew.sessions) == [4])
            #expect(names(session.crews) == ["morning"])
        }

        // A sibling adds a session to the crew and saves; the observer merges it.
        let observer = stack.container.newTaskContext(name: "observer")
        let (observedCrew, observedSession) = observer.performAndWait {
            let crew = observer.object(with: crewID) as! Crew
            let session = observer.object(with: sessionID) as! CrewSession
            #expect(ratings(crew.sessions) == [4])
            return (crew, session)
        }
        let saver = stack.container.newTaskContext(name: "saver")
        let event = Mutex<ContextDidSave?>(nil)
        let observation = saver.observeDidSave { saved in event.withLock { $0 = saved } }
        try saver.performAndWait {
            let crew = saver.object(with: crewID) as! Crew
            crew.sessions.append(self.session(5, in: saver))
            (saver.object(with: sessionID) as! CrewSession).crews = []
            try saver.save()
        }
        observation.cancel()
        let saved = try #require(event.withLock { $0 })
        observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: saved)
            #expect(ratings(observedCrew.sessions) == [5])
            #expect(observedSession.crews.isEmpty)
            #expect(names(observedCrew.sessions[0].crews) == ["morning"])
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk(crewPairs) == 1)
    }

    @Test(arguments: StoreKind.allCases) func aContextThatHasNotMergedShowsBothSidesAlike(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let seed = stack.container.newTaskContext(name: "seed")
        let (crewID, sessionID) = try seed.performAndWait {
            let crew = self.crew("morning", in: seed)
            crew.sessions = [self.session(4, in: seed)]
            try seed.save()
            return (crew.objectID, crew.sessions[0].objectID)
        }
        let reader = stack.container.newTaskContext(name: "reader")
        let (crew, session) = reader.performAndWait {
            let crew = reader.object(with: crewID) as! Crew
            let session = reader.object(with: sessionID) as! CrewSession
            #expect(crew.sessions.first === session)
            return (crew, session)
        }
        let sibling = stack.container.newTaskContext(name: "sibling")
        try sibling.performAndWait {
            (sibling.object(with: crewID) as! Crew).sessions = []
            try sibling.save()
        }
        reader.performAndWait {
            #expect(crew.sessions.contains { $0 === session } == session.crews.contains { $0 === crew })
        }
    }

    @Test(arguments: StoreKind.allCases) func deletingEitherSideRemovesItsPairsAndNotTheOtherObjects(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let morning = self.crew("morning", in: context)
            let evening = self.crew("evening", in: context)
            let dawn = self.session(1, in: context)
            let dusk = self.session(2, in: context)
            morning.sessions = [dawn, dusk]
            evening.sessions = [dusk]
            try context.save()

            context.delete(morning)
            try context.save()
            #expect(names(dawn.crews).isEmpty, "nullify: the pair went with the crew")
            #expect(names(dusk.crews) == ["evening"])
            #expect(!dawn.isDeleted && !dusk.isDeleted)

            context.delete(dusk)
            try context.save()
            #expect(evening.sessions.isEmpty)
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk(crewPairs) == 0)
        #expect(try stack.rowsOnDisk("Crew") == 1)
        #expect(try stack.rowsOnDisk("CrewSession") == 1)
    }

    @Test(arguments: StoreKind.allCases) func cascadeDeletesWhatItReachesAndDenyNamesWhatIsStillReached(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let first = Note(context: context)
            let second = Note(context: context)
            let third = Note(context: context)
            let own = Label(context: context)
            let shared = Label(context: context)
            first.labels = [own]
            second.labels = [shared]
            third.labels = [shared]
            try context.save()

            // A label with notes denies its own delete, naming them.
            context.delete(own)
            let denied = #expect(throws: StoreError.self) { try context.save() }
            #expect(denied?.code == .deleteDenied)
            #expect(denied?.message.contains("\(first.objectID)") == true)
            context.rollback()
            #expect(first.labels.first === own)

            // The first note cascades to its own label, whose only note goes too.
            context.delete(first)
            try context.save()
            #expect(context.registeredObject(for: own.objectID) == nil, "the label went with its only note")

            // The second cascades to the shared label, which the third still has: denied.
            context.delete(second)
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
            #expect(error?.message.contains("\(shared.objectID)") == true)
            #expect(error?.message.contains("\(third.objectID)") == true)
            context.rollback()
            #expect(third.labels.first === shared)
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Label") == 1)
        #expect(try stack.rowsOnDisk("Note") == 2)
        #expect(try stack.rowsOnDisk(labelPairs) == 2)
    }

    @Test(arguments: StoreKind.allCases) func anyAndCountPredicatesGiveTheSameAnswersOverSavedAndUnsavedPairs(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            let shared = self.session(5, in: seed)
            for (name, ratings) in [("A", [1]), ("B", [2, 3]), ("C", [])] {
                let crew = self.crew(name, in: seed)
                crew.sessions = ratings.map { self.session($0, in: seed) } + (name == "C" ? [] : [shared])
            }
            try seed.save()
        }
        try stack.container.flush()

        let predicates: [(String, FetchPredicate<Crew>)] = [
            ("any rating >= 3", .any(\.sessions, where: \.rating >= 3)),
            ("no session", FetchPredicate.count(\.sessions) == 0),
            ("three or more", FetchPredicate.count(\.sessions) >= 3),
            ("no poor session", !FetchPredicate.any(\.sessions, where: \.rating < 2)),
        ]
        let context = stack.container.newTaskContext(name: "job")
        func crews(_ predicate: FetchPredicate<Crew>, pending: Bool) throws -> [String] {
            try context.fetch(FetchRequest(predicate: predicate, sortedBy: [.ascending(\.name)], includesPendingChanges: pending))
                .map { $0.name ?? "?" }
        }
        try context.performAndWait {
            for (label, predicate) in predicates {
                #expect(try crews(predicate, pending: true) == crews(predicate, pending: false), "\(label)")
            }
            #expect(try crews(predicates[0].1, pending: true) == ["A", "B"])
            #expect(try crews(predicates[1].1, pending: true) == ["C"])
            #expect(try crews(predicates[2].1, pending: true) == ["B"])
            #expect(try crews(predicates[3].1, pending: true) == ["B", "C"])

            // Unsaved: A loses the shared session, C gets a good one.
            let all = try context.fetch(FetchRequest<Crew>(sortedBy: [.ascending(\.name)]))
            all[0].sessions.removeAll { $0.rating == 5 }
            all[2].sessions.append(self.session(4, in: context))
            #expect(try crews(predicates[0].1, pending: true) == ["B", "C"])
            #expect(try crews(predicates[1].1, pending: true) == [])
            #expect(try crews(predicates[3].1, pending: true) == ["B", "C"])
            #expect(try context.count(for: FetchRequest(predicate: predicates[2].1)) == 1)
            #expect(try crews(predicates[0].1, pending: false) == ["A", "B"], "the store alone still says what was saved")
            try context.save()
        }
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        try reader.performAndWait {
            let fromStore = try reader.fetch(
                FetchRequest(predicate: predicates[0].1, sortedBy: [.ascending(\.name)], includesPendingChanges: false))
            #expect(fromStore.map { $0.name ?? "?" } == ["B", "C"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aBatchDeleteDeletesThePairsOfTheRowsItDeletes(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: manyToManyModel)
        let seed = stack.container.newTaskContext(name: "seed")
        let crewID = try seed.performAndWait {
            let crew = self.crew("morning", in: seed)
            crew.sessions = [1, 2, 3, 4].map { self.session($0, in: seed) }
            try seed.save()
            return crew.objectID
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk(crewPairs) == 4)

        let job = stack.container.newTaskContext(name: "job")
        let result = try job.performAndWait { try job.execute(BatchDeleteRequest<CrewSession>(predicate: \.rating <= 2)) }
        #expect(result.count == 2)
        #expect(try stack.rowsOnDisk(crewPairs) == 2)
        let reader = stack.container.newTaskContext(name: "reader")
        reader.performAndWait {
            #expect(ratings((reader.object(with: crewID) as! Crew).sessions) == [3, 4])
        }
        // Deleting the crew itself by batch takes the rest of its pairs.
        _ = try job.performAndWait { try job.execute(BatchDeleteRequest<Crew>(predicate: .all)) }
        #expect(try stack.rowsOnDisk(crewPairs) == 0)
        #expect(try stack.rowsOnDisk("CrewSession") == 2)
    }

    @Test(arguments: StoreKind.allCases) func aStoreWrittenBeforeTheManyToManyExistedOpensWithIt(_ store: StoreKind) throws {
        let place = try TemporaryStoreURL(store)
        defer { extendLifetime(place) }
        let before = try openStack(
            at: place.url, model: ManagedObjectModel(CrewWithoutSessions.self, CrewSessionWithoutCrews.self))
        let old = before.newTaskContext(name: "old")
        let (crewID, sessionID) = try old.performAndWait {
            let crew = CrewWithoutSessions(context: old)
            crew.name = "morning"
            let session = CrewSessionWithoutCrews(context: old)
            session.rating = 3
            try old.save()
            return (crew.objectID, session.objectID)
        }
        try before.flush()
        try before.close()

        let after = try openStack(at: place.url, model: manyToManyModel)
        defer { try? after.close() }
        let context = after.newTaskContext(name: "new")
        try context.performAndWait {
            let crew = context.object(with: crewID) as! Crew
            #expect(crew.sessions.isEmpty)
            crew.sessions = [context.object(with: sessionID) as! CrewSession]
            try context.save()
        }
        try after.flush()
        let reader = after.newTaskContext(name: "reader")
        reader.performAndWait {
            #expect(names((reader.object(with: sessionID) as! CrewSession).crews) == ["morning"])
        }
    }
}
