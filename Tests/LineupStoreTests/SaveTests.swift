import Foundation
import LineupStore
import Logging
import Testing

@Suite struct SaveTests {
    @Test(arguments: StoreKind.allCases) func saveGoesExactlyOneLevelUp(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let child = stack.container.newTaskContext(name: "child")
        let id = try child.performAndWait {
            let entry = child.insertEntry("One level", rating: 3)
            try child.save()
            return entry.objectID
        }
        #expect(try stack.rowsOnDisk("Entry") == 0, "a child save reaches the main context, not the disk")
        #expect(stack.main.performAndWait { stack.main.hasChanges })
        try stack.main.performAndWait { try stack.main.save() }
        #expect(try stack.rowsOnDisk("Entry") == 0, "a main save reaches the writer, not the disk")
        try stack.container.writerContext.performAndWait { try stack.container.writerContext.save() }
        #expect(try stack.rowsOnDisk("Entry") == 1)
        let reread = try TemporaryStack.reopen(stack) { context in
            try (context.existingObject(with: id) as! Entry).location
        }
        #expect(reread == "One level")
    }

    @Test(arguments: StoreKind.allCases) func aSaveWithNoChangesDoesNoWork(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let events = Counter()
        let observation = stack.main.observeDidSave { _ in events.increment() }
        try stack.main.performAndWait { try stack.main.save() }
        #expect(events.value == 0)
        _ = observation
    }

    @Test(arguments: StoreKind.allCases) func parentDoesNotSeeUnsavedChildChangesAndChildDoesNotSeeLaterParentChanges(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("before", rating: 1)
            try seed.save()
            return entry.objectID
        }
        let reader = stack.container.newTaskContext(name: "reader")
        let entry = try reader.performAndWait { try reader.existingObject(with: id) as! Entry }
        let writer = stack.container.newTaskContext(name: "writer")
        try writer.performAndWait {
            (try writer.existingObject(with: id) as! Entry).location = "after"
            #expect(stack.main.performAndWait { (stack.main.object(with: id) as! Entry).location } == "before")
            try writer.save()
        }
        #expect(stack.main.performAndWait { (stack.main.object(with: id) as! Entry).location } == "after")
        #expect(reader.performAndWait { entry.location } == "before", "no automatic merge unless asked")
    }

    @Test(arguments: StoreKind.allCases) func automaticallyMergesChangesFromParent(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("before")
            try seed.save()
            return entry.objectID
        }
        let follower = stack.container.newTaskContext(name: "follower")
        follower.automaticallyMergesChangesFromParent = true
        let entry = try follower.performAndWait { try follower.existingObject(with: id) as! Entry }
        let writer = stack.container.newTaskContext(name: "writer")
        try writer.performAndWait {
            (try writer.existingObject(with: id) as! Entry).location = "after"
            try writer.save()
        }
        // The merge is asynchronous (downward); a block queued after it sees its result.
        let location = follower.performAndWait { entry.location }
        #expect(location == "after")
    }

    @Test(arguments: StoreKind.allCases) func validationFailureRefusesTheSave(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: validatedModel)
        let context = stack.container.newTaskContext(name: "job")
        context.performAndWait {
            let entry = ValidatedEntry(context: context)
            entry.rating = 9
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            #expect(context.hasChanges)
        }
        #expect(!stack.main.performAndWait { stack.main.hasChanges })
    }
}

final class ValidatedEntry: ManagedObject {
    @Attribute("rating") var rating: Int?
    struct OutOfRange: Error {}
    override func validateForSave() throws {
        if let rating, !(1...5).contains(rating) { throw OutOfRange() }
    }
}

let validatedModel = ManagedObjectModel(Entry.self, Station.self, Reading.self, ValidatedEntry.self)

extension TemporaryStack {
    /// Opens the same store file again in a second container and runs `body` in a context of it.
    static func reopen<T>(_ stack: TemporaryStack, _ body: (ManagedObjectContext) throws -> T) throws -> T {
        let other = try openStack(at: stack.url, model: testModel, logger: .init(label: "reopen"))
        defer { try? other.close() }
        let context = other.newTaskContext(name: "reopened")
        return try context.performAndWait { try body(context) }
    }
}

/// A thread-safe counter for observers.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: every access goes through the lock.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
