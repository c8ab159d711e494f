import Foundation
import LineupStore
import Synchronization
import Testing

/// A context that has not merged a sibling's save still shows one graph whose two sides agree.
/// Core Data keeps what a context has loaded as it loaded it until the context merges or
/// refreshes (`NSManagedObjectContext.mergeChanges(fromContextDidSave:)`, `refresh(_:mergeChanges:)`);
/// Lineup reads both sides of a relationship from that one version of each row.
@Suite struct UnmergedRelationshipTests {
    private struct Graph {
        let authorA: ObjectID
        let authorB: ObjectID
        let bookX: ObjectID
    }

    /// Spot A with session X, spot B with none; saved and flushed.
    private func seed(_ stack: TemporaryStack) throws -> Graph {
        let seed = stack.container.newTaskContext(name: "seed")
        let graph = try seed.performAndWait {
            let authorA = Spot(context: seed)
            authorA.name = "A"
            let authorB = Spot(context: seed)
            authorB.name = "B"
            let bookX = Session(context: seed)
            bookX.rating = 1
            bookX.spot = authorA
            try seed.save()
            return Graph(authorA: authorA.objectID, authorB: authorB.objectID, bookX: bookX.objectID)
        }
        try stack.container.flush()
        return graph
    }

    /// A sibling moves X to B, gives A a new session Y (rating 2), saves into the parent and
    /// returns its save's event.
    private func moveXToBAndAddY(_ graph: Graph, in stack: TemporaryStack) throws -> ContextDidSave {
        let sibling = stack.container.newTaskContext(name: "sibling")
        let event = Mutex<ContextDidSave?>(nil)
        let observation = sibling.observeDidSave { saved in event.withLock { $0 = saved } }
        try sibling.performAndWait {
            let bookX = try sibling.existingObject(with: graph.bookX) as! Session
            bookX.spot = (try sibling.existingObject(with: graph.authorB) as! Spot)
            let bookY = Session(context: sibling)
            bookY.rating = 2
            bookY.spot = (try sibling.existingObject(with: graph.authorA) as! Spot)
            try sibling.save()
        }
        observation.cancel()
        return try #require(event.withLock { $0 })
    }

    /// Every session a spot lists leads back to it, and every loaded session is listed by the spot
    /// it leads to and by no other.
    private func expectBothSidesAgree(
        _ spots: [Spot], _ sessions: [Session], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for spot in spots {
            for session in spot.sessions {
                #expect(session.spot === spot, "\(spot.name ?? "?") lists \(session) whose spot is \(String(describing: session.spot?.name))", sourceLocation: sourceLocation)
            }
        }
        for session in sessions {
            for spot in spots {
                #expect(
                    spot.sessions.contains { $0 === session } == (session.spot === spot),
                    "\(session) leads to \(String(describing: session.spot?.name)); \(spot.name ?? "?") lists it: \(spot.sessions.contains { $0 === session })",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aContextThatHasNotMergedShowsBothSidesAsItLoadedThem(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let graph = try seed(stack)
        let reader = stack.container.newTaskContext(name: "reader")
        let (authorA, authorB, bookX) = try reader.performAndWait {
            let authorA = try reader.existingObject(with: graph.authorA) as! Spot
            let authorB = try reader.existingObject(with: graph.authorB) as! Spot
            #expect(authorA.sessions.map(\.objectID) == [graph.bookX])
            #expect(authorB.sessions.isEmpty)
            return (authorA, authorB, authorA.sessions[0])
        }

        let event = try moveXToBAndAddY(graph, in: stack)
        reader.performAndWait {
            #expect(bookX.spot === authorA, "not merged: X is as the reader loaded it")
            #expect(authorA.sessions.contains { $0 === bookX }, "A still lists X, as X says")
            #expect(!authorB.sessions.contains { $0 === bookX }, "B does not list X, which says A")
            expectBothSidesAgree([authorA, authorB], [bookX])
        }

        // On the disk too, the reader's view stays as it was until it merges.
        try stack.container.flush()
        reader.performAndWait {
            #expect(bookX.spot === authorA)
            #expect(!authorB.sessions.contains { $0 === bookX })
            expectBothSidesAgree([authorA, authorB], [bookX])
        }

        // Merged, both sides show the sibling's save.
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: event)
            #expect(bookX.spot === authorB)
            #expect(authorB.sessions.map(\.objectID) == [graph.bookX])
            #expect(authorA.sessions.map { $0.rating ?? -1 } == [2])
            expectBothSidesAgree([authorA, authorB], [bookX] + authorA.sessions)
        }
    }

    @Test(arguments: StoreKind.allCases) func refreshingTheMovedObjectMovesItOnBothSides(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let graph = try seed(stack)
        let reader = stack.container.newTaskContext(name: "reader")
        let (authorA, authorB, bookX) = try reader.performAndWait {
            let authorA = try reader.existingObject(with: graph.authorA) as! Spot
            let authorB = try reader.existingObject(with: graph.authorB) as! Spot
            _ = authorB.sessions
            return (authorA, authorB, authorA.sessions[0])
        }
        _ = try moveXToBAndAddY(graph, in: stack)
        reader.performAndWait {
            #expect(authorB.sessions.isEmpty)
            reader.refresh(bookX, mergeChanges: false)
            #expect(authorB.sessions.map(\.objectID) == [graph.bookX], "refreshed, X shows the parent's version")
            #expect(bookX.spot === authorB)
            #expect(!authorA.sessions.contains { $0 === bookX })
            expectBothSidesAgree([authorA, authorB], [bookX] + authorA.sessions)
        }
    }

    @Test(arguments: StoreKind.allCases) func aChangeOfTheUnmergedContextMovesTheObjectOnBothSides(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let graph = try seed(stack)
        let reader = stack.container.newTaskContext(name: "reader")
        let (authorA, authorB, bookX) = try reader.performAndWait {
            let authorA = try reader.existingObject(with: graph.authorA) as! Spot
            let authorB = try reader.existingObject(with: graph.authorB) as! Spot
            return (authorA, authorB, authorA.sessions[0])
        }
        _ = try moveXToBAndAddY(graph, in: stack)
        reader.performAndWait {
            // The reader's own change of X wins over the sibling's, here as in its save.
            bookX.spot = nil
            #expect(!authorA.sessions.contains { $0 === bookX })
            #expect(!authorB.sessions.contains { $0 === bookX })
            authorA.sessions.append(bookX)
            #expect(bookX.spot === authorA)
            expectBothSidesAgree([authorA, authorB], [bookX])
            reader.rollback()
            #expect(bookX.spot === authorA, "rolled back to the version the reader loaded")
            #expect(!authorB.sessions.contains { $0 === bookX })
            expectBothSidesAgree([authorA, authorB], [bookX])
        }
    }
}
