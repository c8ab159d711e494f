import Foundation
@testable import LineupStore
import Logging
import Testing

/// A parent context tells its observers how many rows its children's saves have left in it
/// (``ChildSaveAccepted``), and ``BackgroundFlush`` flushes the stack on that cue. The container
/// never flushes by itself.
@Suite struct ChildSaveTests {
    func saveEntries(_ count: Int, in stack: TemporaryStack, from name: String = "task") throws {
        let task = stack.container.newTaskContext(name: name)
        try task.performAndWait {
            for index in 0..<count { task.insertEntry("\(name) \(index)") }
            try task.save()
        }
    }

    @Test(arguments: StoreKind.allCases) func eachChildSaveTellsWhatTheParentNowHolds(_ store: StoreKind) async throws {
        let stack = try TemporaryStack(store)
        let events = stack.main.childSaveEvents()
        var iterator = events.makeAsyncIterator()
        try saveEntries(150, in: stack, from: "first")
        try saveEntries(50, in: stack, from: "second")
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.childName == "first")
        #expect(first?.pendingRowCount == 150)
        #expect(second?.childName == "second")
        #expect(second?.pendingRowCount == 200)

        try stack.container.flush()
        try saveEntries(10, in: stack, from: "third")
        #expect(await iterator.next()?.pendingRowCount == 10, "a flush empties the main context")
    }

    @Test(arguments: StoreKind.allCases) func theContainerDoesNotFlushByItself(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try saveEntries(1_000, in: stack)
        #expect(stack.main.performAndWait { stack.main.pendingChanges().count } == 1_000)
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func aBackgroundFlushWritesTheRowsPastItsLimit(_ store: StoreKind) async throws {
        let stack = try TemporaryStack(store)
        let flushing = BackgroundFlush(container: stack.container, rowLimit: 100, logger: Logger(label: "test"))
        var written = stack.container.writerContext.didSaveEvents().makeAsyncIterator()
        try saveEntries(150, in: stack)
        let event = await written.next()
        #expect(event?.insertedObjectIDs.count == 150)
        try flushing.finish()
        #expect(try stack.rowsOnDisk("Entry") == 150)
        #expect(stack.main.performAndWait { stack.main.pendingChanges().count } == 0)
    }

    @Test(arguments: StoreKind.allCases) func atItsLimitABackgroundFlushLeavesTheRowsInMain(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let flushing = BackgroundFlush(container: stack.container, rowLimit: 100, logger: Logger(label: "test"))
        try saveEntries(100, in: stack)
        try flushing.finish()
        #expect(stack.main.performAndWait { stack.main.pendingChanges().count } == 100)
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func finishStopsWatching(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let flushing = BackgroundFlush(container: stack.container, rowLimit: 100, logger: Logger(label: "test"))
        try flushing.finish()
        try saveEntries(150, in: stack)
        #expect(stack.main.performAndWait { stack.main.pendingChanges().count } == 150)
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func aBackgroundFlushThatFailedIsThrownByFinish(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let flushing = BackgroundFlush(container: stack.container, rowLimit: 100, logger: Logger(label: "test"))
        try stack.container.close()
        try saveEntries(150, in: stack)
        #expect(throws: (any Error).self) { try flushing.finish() }
        // The main context handed them over; the writer keeps them for the next flush.
        let writer = stack.container.writerContext
        #expect(writer.performAndWait { writer.pendingChanges().count } == 150)
    }
}
