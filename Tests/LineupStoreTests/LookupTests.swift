import Foundation
import LineupStore
import Testing

@Suite struct LookupTests {
    @Test(arguments: StoreKind.allCases) func objectWithIDReturnsTheRegisteredObjectOrAFault(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let (saved, _) = try insertAndFlush(stack)
        let context = stack.container.newTaskContext(name: "reader")
        try context.performAndWait { () throws in
            #expect(context.registeredObject(for: saved) == nil)
            let fault = context.object(with: saved)
            #expect(fault.isFault)
            #expect(context.registeredObject(for: saved) === fault)
            #expect(context.object(with: saved) === fault, "uniquing: one object per ID")
            #expect((fault as! Entry).location == "Pleasure Point")
            #expect(!fault.isFault)
            #expect(try context.existingObject(with: saved) === fault)
        }
    }

    @Test(arguments: StoreKind.allCases) func missingRowNeverCrashes(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let (_, missing) = try insertAndFlush(stack)
        let context = stack.container.newTaskContext(name: "reader")
        context.performAndWait {
            let fault = context.object(with: missing) as! Entry
            #expect(fault.isFault)
            #expect(fault.location == nil)
            #expect(fault.score == 0)
            #expect(fault.isDeleted)
            let error = #expect(throws: StoreError.self) { try fault.load() }
            #expect(error?.code == .objectNotFound)
            let other = context.object(with: ObjectID(uriRepresentation: URL(string: missing.uriRepresentation.absoluteString.replacingOccurrences(of: "/p\(missing.primaryKey)", with: "/p\(missing.primaryKey + 1)"))!)!)
            #expect(throws: StoreError.self) { try context.existingObject(with: other.objectID) }
        }
    }

    @Test(arguments: StoreKind.allCases) func existingObjectThrowsForADeletedRow(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let (saved, _) = try insertAndFlush(stack)
        let deleter = stack.container.newTaskContext(name: "deleter")
        try deleter.performAndWait {
            deleter.delete(try deleter.existingObject(with: saved))
            try deleter.save()
        }
        let reader = stack.container.newTaskContext(name: "reader")
        reader.performAndWait {
            let error = #expect(throws: StoreError.self) { try reader.existingObject(with: saved) }
            #expect(error?.code == .objectNotFound)
        }
    }

    /// Saves one entry to disk; returns its ID and the ID of an entry inserted and deleted (gone).
    private func insertAndFlush(_ stack: TemporaryStack) throws -> (ObjectID, ObjectID) {
        let context = stack.container.newTaskContext(name: "writer-job")
        let ids = try context.performAndWait {
            let kept = context.insertEntry("Pleasure Point", rating: 3)
            let gone = context.insertEntry("Gone")
            try context.save()
            context.delete(gone)
            try context.save()
            return (kept.objectID, gone.objectID)
        }
        try stack.container.flush()
        return ids
    }
}
