import Dispatch
import Foundation
import GRDB
@testable import LineupStore
import Logging
import Synchronization
import Testing

/// The writer's durability setting and the backpressure it puts on child saves.
@Suite(.serialized) struct WriterTests {
    private func synchronousSetting(of store: SQLiteStore) throws -> Int? {
        try store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    /// GRDB sets `synchronous = NORMAL` when it switches a pool to WAL; every commit of ours
    /// acknowledges jobs, so the writer connection must stay at FULL (2), for a new store and for
    /// an existing one.
    @Test func theWriterCommitsWithSynchronousFull() throws {
        let stack = try TemporaryStack()
        #expect(try synchronousSetting(of: stack.container.sqliteStore) == SQLiteStore.synchronousFull)
        #expect(SQLiteStore.synchronousFull == 2)
        try stack.container.flush()
        let reopened = try PersistentContainer(url: stack.url, model: testModel, logger: .init(label: "reopen"))
        defer { try? reopened.close() }
        #expect(try synchronousSetting(of: reopened.sqliteStore) == 2)
    }

    /// The writer, the connection whose commits checkpoint, is set to let the WAL grow to
    /// `checkpointPages` (more than SQLite's default) before it copies it into the database; a
    /// flush leaves its pages in the WAL, and closing the store still empties it.
    @Test func theWriterCheckpointsAtItsOwnPageLimitAndCloseEmptiesTheWAL() throws {
        let stack = try TemporaryStack()
        let store = stack.container.sqliteStore
        let limit = try store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(limit == SQLiteStore.checkpointPages)
        #expect(SQLiteStore.checkpointPages > 1_000, "not above SQLite's default of 1,000 pages")

        let context = stack.container.newTaskContext(name: "rows")
        try context.performAndWait {
            for row in 0..<2_000 { context.insertEntry("row-\(row)") }
            try context.save()
        }
        try stack.container.flush()
        let walPath = stack.url.path + "-wal"
        let walBytes = { (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0 }
        #expect(walBytes() > 0, "the flush's pages wait in the WAL")
        try stack.container.close()
        #expect(walBytes() == 0)
    }

    /// While the writer writes and the contexts above hold more rows than the backlog limit, a
    /// child's save waits for that write to end, then goes through.
    @Test func aChildSaveWaitsForTheWriteUnderWayWhenTheBacklogIsFull() throws {
        let stack = try TemporaryStack()
        let container = stack.container
        let store = container.sqliteStore
        let gate = container.writerContext.writeGate
        gate.backlogLimit.store(0, ordering: .relaxed)
        let first = container.newTaskContext(name: "first")
        try first.performAndWait {
            for row in 0..<5 { first.insertEntry("first-\(row)") }
            try first.save()
        }
        try container.mainContext.performAndWait { try container.mainContext.save() }

        // Hold SQLite's writer connection, so that the writer's save stays under way.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        finished.enter()
        Thread.detachNewThread {
            store.pool.writeWithoutTransaction { _ in
                holding.signal()
                release.wait()
            }
            finished.leave()
        }
        holding.wait()
        finished.enter()
        Thread.detachNewThread {
            try! container.writerContext.performAndWait { try container.writerContext.save() }
            finished.leave()
        }
        #expect(waitUntil { gate.isWriting })

        let second = container.newTaskContext(name: "second")
        let rowsOnDiskWhenSecondSaved = Recorded()
        finished.enter()
        Thread.detachNewThread {
            try! second.performAndWait {
                second.insertEntry("second")
                try second.save()
            }
            rowsOnDiskWhenSecondSaved.set(try! store.rowCount(of: "Entry"))
            finished.leave()
        }
        #expect(waitUntil { gate.waitingCount == 1 }, "the second save waits for the write")
        #expect(rowsOnDiskWhenSecondSaved.value == nil)

        release.signal()
        finished.wait()
        #expect(rowsOnDiskWhenSecondSaved.value == 5, "it went on only once the write had committed")
        #expect(gate.waitingCount == 0)
        try container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 6)
    }

    /// Under the limit, or with no write under way, a save never waits.
    @Test func noBackpressureWithoutAWriteUnderWay() throws {
        let stack = try TemporaryStack()
        stack.container.writerContext.writeGate.backlogLimit.store(0, ordering: .relaxed)
        for chunk in 0..<3 {
            let child = stack.container.newTaskContext(name: "chunk-\(chunk)")
            try child.performAndWait {
                child.insertEntry("row-\(chunk)")
                try child.save()
            }
        }
        #expect(stack.main.performAndWait { stack.main.childChanges.count } == 3)
        #expect(stack.container.writerContext.writeGate.waitingCount == 0)
    }

    /// Polls `condition` until it holds, for at most ten seconds (a thread's progress, which no
    /// event announces).
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}

/// A value set once by another thread.
final class Recorded: Sendable {
    private let storage = Mutex<Int?>(nil)
    func set(_ value: Int) { storage.withLock { $0 = value } }
    var value: Int? { storage.withLock { $0 } }
}
