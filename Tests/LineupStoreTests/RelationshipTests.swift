import Foundation
import LineupStore
import Logging
import Testing

// A model with every delete rule: buoys cascade to readings, which cascade to notes; spots
// nullify their sessions; regions deny while they have beaches, whose own rule is no action.

final class Buoy: ManagedObject {
    @Attribute("name") var name: String?
    @ToMany("readings", inverse: "buoy", deleteRule: .cascade) var readings: [BuoyReading]
}

final class BuoyReading: ManagedObject {
    @Relationship("buoy", inverse: "readings") var buoy: Buoy?
    @Attribute("height") var height: Double?
    @ToMany("notes", inverse: "reading", deleteRule: .cascade) var notes: [ReadingNote]
}

final class ReadingNote: ManagedObject {
    @Relationship("reading", inverse: "notes") var reading: BuoyReading?
    @Attribute("text") var text: String?
}

final class Spot: ManagedObject {
    @Attribute("name") var name: String?
    @ToMany("sessions", inverse: "spot", deleteRule: .nullify) var sessions: [Session]
}

final class Session: ManagedObject {
    @Relationship("spot", inverse: "sessions") var spot: Spot?
    @Attribute("rating") var rating: Int?
}

final class Region: ManagedObject {
    @Attribute("name") var name: String?
    @ToMany("beaches", inverse: "region", deleteRule: .deny) var beaches: [Beach]
}

final class Beach: ManagedObject {
    @Relationship("region", inverse: "beaches", deleteRule: .noAction) var region: Region?
    @Attribute("name") var name: String?
}

let relationshipModel = ManagedObjectModel(
    Buoy.self, BuoyReading.self, ReadingNote.self, Spot.self, Session.self, Region.self, Beach.self)

/// `Spot` and `Session` as an earlier version of the model declared them: no relationship at all.
final class SpotWithoutSessions: ManagedObject {
    override class var entityName: String { "Spot" }
    @Attribute("name") var name: String?
}

final class SessionWithoutInverse: ManagedObject {
    override class var entityName: String { "Session" }
    @Relationship("spot") var spot: SpotWithoutSessions?
    @Attribute("rating") var rating: Int?
}

@Suite struct RelationshipTests {
    private func names(_ sessions: [Session]) -> [Int] { sessions.map { $0.rating ?? -1 } }

    @Test(arguments: StoreKind.allCases) func settingEitherSideSetsTheOtherInEveryContext(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let job = stack.container.newTaskContext(name: "job")
        let spotID = try job.performAndWait {
            let spot = Spot(context: job)
            spot.name = "Steamer Lane"
            let first = Session(context: job)
            first.rating = 1
            first.spot = spot
            let second = Session(context: job)
            second.rating = 2
            second.spot = spot
            #expect(names(spot.sessions) == [1, 2], "the to-one side set: the to-many side follows, unsaved")

            let third = Session(context: job)
            third.rating = 3
            spot.sessions.append(third)
            #expect(third.spot === spot, "the to-many side set: the to-one side follows")
            spot.sessions.removeAll { $0 === first }
            #expect(first.spot == nil)
            #expect(names(spot.sessions) == [2, 3])
            try job.save()
            return spot.objectID
        }
        // The parent sees both sides as the child saved them, before anything reaches the disk.
        let inMain = stack.main.performAndWait { names((stack.main.object(with: spotID) as! Spot).sessions) }
        #expect(inMain == [2, 3])
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        let onDisk = reader.performAndWait { names((reader.object(with: spotID) as! Spot).sessions) }
        #expect(onDisk == [2, 3])
    }

    @Test(arguments: StoreKind.allCases) func rollbackAndMergesKeepBothSidesTogether(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let seed = stack.container.newTaskContext(name: "seed")
        let (spotID, sessionID) = try seed.performAndWait {
            let spot = Spot(context: seed)
            let session = Session(context: seed)
            session.rating = 4
            session.spot = spot
            try seed.save()
            return (spot.objectID, session.objectID)
        }
        let job = stack.container.newTaskContext(name: "job")
        job.performAndWait {
            let spot = job.object(with: spotID) as! Spot
            spot.sessions = []
            #expect((job.object(with: sessionID) as! Session).spot == nil)
            job.rollback()
            #expect(names(spot.sessions) == [4])
            #expect((job.object(with: sessionID) as! Session).spot === spot)
        }

        // Another context adds a session; this one merges its save and sees it on both sides.
        let observer = stack.container.newTaskContext(name: "observer")
        let spot = observer.performAndWait { observer.object(with: spotID) as! Spot }
        let saver = stack.container.newTaskContext(name: "saver")
        let events = saver.didSaveEvents()
        try saver.performAndWait {
            let session = Session(context: saver)
            session.rating = 5
            session.spot = (saver.object(with: spotID) as! Spot)
            try saver.save()
        }
        _ = events
        observer.performAndWait {
            #expect(names(spot.sessions) == [4, 5])
        }
    }

    @Test(arguments: StoreKind.allCases) func anyAndCountPredicatesGiveTheSameAnswersOverSavedAndUnsavedRows(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            for (name, ratings) in [("A", [5, 1]), ("B", [2]), ("C", [])] {
                let spot = Spot(context: seed)
                spot.name = name
                for rating in ratings {
                    let session = Session(context: seed)
                    session.rating = rating
                    session.spot = spot
                }
            }
            try seed.save()
        }
        try stack.container.flush()

        let predicates: [(String, FetchPredicate<Spot>)] = [
            ("any rating >= 5", .any(\.sessions, where: \.rating >= 5)),
            ("no session", FetchPredicate.count(\.sessions) == 0),
            ("some session", FetchPredicate.count(\.sessions) >= 1),
            ("two or more", FetchPredicate.count(\.sessions) > 1),
            ("no good session", !FetchPredicate.any(\.sessions, where: \.rating >= 4)),
        ]
        let context = stack.container.newTaskContext(name: "job")
        func spots(_ predicate: FetchPredicate<Spot>, pending: Bool) throws -> [String] {
            try context.fetch(FetchRequest(predicate: predicate, sortedBy: [.ascending(\.name)], includesPendingChanges: pending))
                .map { $0.name ?? "?" }
        }
        try context.performAndWait {
            // Saved rows only: the store's correlated subqueries and the context's counting agree.
            for (label, predicate) in predicates {
                #expect(try spots(predicate, pending: true) == spots(predicate, pending: false), "\(label)")
            }
            #expect(try spots(predicates[0].1, pending: true) == ["A"])
            #expect(try spots(predicates[1].1, pending: true) == ["C"])

            // Unsaved: B gets a good session, A loses its good one, D arrives with three.
            let all = try context.fetch(FetchRequest<Spot>(sortedBy: [.ascending(\.name)]))
            let (a, b) = (all[0], all[1])
            let good = Session(context: context)
            good.rating = 5
            good.spot = b
            for session in a.sessions where session.rating == 5 { context.delete(session) }
            let d = Spot(context: context)
            d.name = "D"
            for rating in [1, 2, 3] {
                let session = Session(context: context)
                session.rating = rating
                d.sessions.append(session)
            }
            #expect(try spots(predicates[0].1, pending: true) == ["B"])
            #expect(try spots(predicates[1].1, pending: true) == ["C"])
            #expect(try spots(predicates[2].1, pending: true) == ["A", "B", "D"])
            #expect(try spots(predicates[3].1, pending: true) == ["B", "D"])
            #expect(try spots(predicates[4].1, pending: true) == ["A", "C", "D"])
            #expect(try context.count(for: FetchRequest(predicate: predicates[3].1)) == 2)
            // The store alone still says what was saved.
            #expect(try spots(predicates[0].1, pending: false) == ["A"])

            // Saved and flushed, the same answers come from the store.
            try context.save()
        }
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        try reader.performAndWait {
            for (label, predicate) in predicates {
                let fromStore = try reader.fetch(
                    FetchRequest(predicate: predicate, sortedBy: [.ascending(\.name)], includesPendingChanges: false)
                ).map { $0.name ?? "?" }
                let expected: [String] =
                    switch label {
                    case "any rating >= 5": ["B"]
                    case "no session": ["C"]
                    case "some session": ["A", "B", "D"]
                    case "two or more": ["B", "D"]
                    default: ["A", "C", "D"]
                    }
                #expect(fromStore == expected, "\(label)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func nullifyClearsTheInverseOfWhatTheDeletedObjectReached(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        let sessionIDs = try context.performAndWait {
            let spot = Spot(context: context)
            let sessions = (0..<2).map { _ in Session(context: context) }
            spot.sessions = sessions
            try context.save()
            context.delete(spot)
            try context.save()
            #expect(sessions.allSatisfy { $0.spot == nil && !$0.isDeleted })
            return sessions.map(\.objectID)
        }
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        for id in sessionIDs {
            let spot = try reader.performAndWait { (try reader.existingObject(with: id) as! Session).spot }
            #expect(spot == nil)
        }
        #expect(try stack.rowsOnDisk("Spot") == 0)
        #expect(try stack.rowsOnDisk("Session") == 2)
    }

    @Test(arguments: StoreKind.allCases) func cascadeDeletesWhatTheDeletedObjectReachedTwoLevelsDown(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let buoy = Buoy(context: context)
            for index in 0..<3 {
                let reading = BuoyReading(context: context)
                reading.height = Double(index)
                reading.buoy = buoy
                let note = ReadingNote(context: context)
                note.text = "reading \(index)"
                note.reading = reading
            }
            let other = Buoy(context: context)
            BuoyReading(context: context).buoy = other
            try context.save()
            context.delete(buoy)
            try context.save()
            #expect(other.readings.count == 1)
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Buoy") == 1)
        #expect(try stack.rowsOnDisk("BuoyReading") == 1)
        #expect(try stack.rowsOnDisk("ReadingNote") == 0)
    }

    @Test(arguments: StoreKind.allCases) func denyFailsTheSaveNamingTheObjectsAndChangesNothing(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let region = Region(context: context)
            let beaches = (0..<2).map { _ in Beach(context: context) }
            region.beaches = beaches
            let empty = Region(context: context)
            try context.save()

            context.delete(region)
            context.delete(empty)
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
            #expect(error?.message.contains("\(region.objectID)") == true)
            for beach in beaches { #expect(error?.message.contains("\(beach.objectID)") == true) }
            // Nothing changed: the delete still waits, the beaches keep their region.
            #expect(region.isDeleted && empty.isDeleted)
            #expect(beaches.allSatisfy { !$0.isDeleted && $0.hasChanges == false })
            #expect(Set(context.deletedObjects.map(\.objectID)) == [region.objectID, empty.objectID])

            // With its beaches deleted in the same save, the region may go (their rule is no action).
            for beach in beaches { context.delete(beach) }
            try context.save()
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Region") == 0)
        #expect(try stack.rowsOnDisk("Beach") == 0)
    }

    @Test(arguments: StoreKind.allCases) func noActionLeavesTheKeyDangling(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let region = Region(context: context)
            let beach = Beach(context: context)
            beach.region = region
            try context.save()
            context.delete(beach)
            try context.save()
            #expect(region.beaches.isEmpty)
            #expect(!region.isDeleted)
        }
    }

    @Test(arguments: StoreKind.allCases) func aStoreWrittenBeforeTheRelationshipsExistedOpensWithThem(_ store: StoreKind) throws {
        let place = try TemporaryStoreURL(store)
        defer { extendLifetime(place) }
        let url = place.url
        let before = try openStack(at: url, model: ManagedObjectModel(SpotWithoutSessions.self, SessionWithoutInverse.self))
        let context = before.newTaskContext(name: "old")
        let spotID = try context.performAndWait {
            let spot = SpotWithoutSessions(context: context)
            spot.name = "Rincon"
            let session = SessionWithoutInverse(context: context)
            session.rating = 4
            session.spot = spot
            try context.save()
            return spot.objectID
        }
        try before.flush()
        try before.close()

        let after = try openStack(at: url, model: relationshipModel)
        defer { try? after.close() }
        let reader = after.newTaskContext(name: "new")
        let ratings = reader.performAndWait { names((reader.object(with: spotID) as! Spot).sessions) }
        #expect(ratings == [4])
    }
}
