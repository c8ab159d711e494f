import Dispatch
import Foundation
import LineupStore
import Synchronization
import Testing

/// Long reads in task contexts (exports) hold the store's pooled readers (on PostgreSQL; on
/// SQLite each opens a connection of its own). The main context and the writer must never wait
/// for one: a save into the main context and a flush complete however many enumerations are open.
///
/// Timeline of each test: the enumerations start, each on its own thread, and stop inside their
/// first batch on a latch the test holds (their cursors stay open, each on its connection);
/// then the import (or the main context's read) runs and must finish within `patience`; then the
/// latch opens and the enumerations end.
@Suite(.serialized) struct ReaderTests {
    /// The pool's readers when the container is not told otherwise.
    static let pooledReaders = SQLiteStore.defaultReaderCount
    /// Far longer than any of these steps takes when nothing blocks it.
    static let patience: DispatchTimeInterval = .seconds(10)

    @Test(arguments: StoreKind.allCases) func aSaveWithAUniqueKeyAndAFlushFinishWhileMoreEnumerationsThanReadersAreOpen(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let container = stack.container
        let existing = try Self.seed(stack, entries: 3)
        // The importer loads its object before the readers are taken: its update then needs no
        // read of its own in the task context, only the main context's and the writer's checks.
        let importer = container.newTaskContext(name: "import")
        let loaded = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let imported = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Thread.detachNewThread {
            do {
                try importer.performAndWait {
                    let entry = try importer.existingObject(with: existing[0]) as! Entry
                    loaded.signal()
                    go.wait()
                    let station = Station(context: importer)
                    station.stationID = "42002"  // a uniqueness constraint: checked against the store
                    entry.rating = 5  // an update: its version is checked against the store
                    try importer.save()
                }
                try container.flush()
            } catch {
                failure.withLock { $0 = "\(error)" }
                loaded.signal()  // (again, if the failure came after the load): never leave the test waiting
            }
            imported.signal()
        }
        loaded.wait()

        let enumerations = HeldEnumerations(container, count: Self.pooledReaders + 1)
        defer { enumerations.finish() }
        #expect(enumerations.waitUntilReadersAreHeld(Self.pooledReaders), "every pooled reader is held")
        go.signal()
        let finished = imported.wait(timeout: .now() + Self.patience) == .success
        #expect(finished, "the save into the main context and the flush waited for a reader that exports hold")
        enumerations.finish()
        if !finished { imported.wait() }
        #expect(failure.withLock { $0 } == nil)
        #expect(try stack.rowsOnDisk("Station") == 1)
        let rating = try TemporaryStack.reopen(stack) { context in
            try (context.existingObject(with: existing[0]) as! Entry).rating
        }
        #expect(rating == 5)
        #expect(enumerations.completed == Self.pooledReaders + 1, "every enumeration ran to its end")
    }

    @Test(arguments: StoreKind.allCases) func theMainContextEnumeratesWhileTasksHoldEveryReader(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try Self.seed(stack, entries: 3)
        let enumerations = HeldEnumerations(stack.container, count: Self.pooledReaders)
        defer { enumerations.finish() }
        #expect(enumerations.waitUntilReadersAreHeld(Self.pooledReaders))

        let main = stack.main
        let done = DispatchSemaphore(value: 0)
        let seen = Mutex<(rows: Int, counts: [Int])>((0, []))
        Thread.detachNewThread {
            main.performAndWait {
                // A read inside the enumeration's batch, on the same queue, must not wait for the
                // enumeration's own cursor either.
                try? main.enumerate(FetchRequest<Entry>(), batchSize: 2) { batch in
                    let count = (try? main.count(for: FetchRequest<Entry>())) ?? -1
                    seen.withLock { $0.rows += batch.count; $0.counts.append(count) }
                }
            }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + Self.patience) == .success
        #expect(finished, "the main context waited for a reader that the tasks hold")
        enumerations.finish()
        if !finished { done.wait() }
        #expect(seen.withLock { $0.rows } == 3)
        #expect(seen.withLock { $0.counts } == [3, 3])
    }

    @Test(arguments: StoreKind.allCases) func aPoolSizedForTheTasksLetsEachHoldAReaderAtOnce(_ store: StoreKind) throws {
        let tasks = 8
        let readers = PersistentContainer.readerCount(forConcurrentTasks: tasks)
        #expect(readers == tasks + 1)
        #expect(PersistentContainer.readerCount(forConcurrentTasks: 2) == SQLiteStore.defaultReaderCount)
        let stack = try TemporaryStack(store, maximumReaderCount: readers)
        try Self.seed(stack, entries: 3)
        let enumerations = HeldEnumerations(stack.container, count: readers)
        defer { enumerations.finish() }
        #expect(enumerations.waitUntilReadersAreHeld(readers), "every enumeration has a reader of its own")
        enumerations.finish()
        #expect(enumerations.completed == readers)
    }

    /// Saves `entries` journal entries to disk and returns their IDs.
    @discardableResult
    static func seed(_ stack: TemporaryStack, entries: Int) throws -> [ObjectID] {
        let context = stack.container.newTaskContext(name: "seed")
        let ids = try context.performAndWait {
            let inserted = (0..<entries).map { context.insertEntry("spot-\($0)", rating: 3) }
            try context.save()
            return inserted.map(\.objectID)
        }
        try stack.container.flush()
        return ids
    }
}

/// Enumerations of every journal entry, one batch of one row at a time, each in a task context
/// on its own thread, that stop inside their first batch until ``finish()``: each holds one of
/// the store's pooled readers meanwhile on PostgreSQL, a connection of its own on SQLite (the
/// cursor is open on it).
final class HeldEnumerations: Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let latch = DispatchSemaphore(value: 0)
    private let ended = DispatchGroup()
    private let count: Int
    private let released = Atomic<Bool>(false)
    private let completions = Atomic<Int>(0)

    init(_ container: PersistentContainer, count: Int) {
        self.count = count
        for number in 0..<count {
            let context = container.newTaskContext(name: "export-\(number)")
            ended.enter()
            Thread.detachNewThread { [self] in
                defer { ended.leave() }
                var first = true
                let result = Result {
                    try context.performAndWait {
                        try context.enumerate(FetchRequest<Entry>(), batchSize: 1) { _ in
                            guard first else { return }
                            first = false
                            started.signal()
                            latch.wait()
                        }
                    }
                }
                if case .success = result { completions.add(1, ordering: .relaxed) }
            }
        }
    }

    /// Waits until `readers` enumerations are inside their first batch; false after a while.
    func waitUntilReadersAreHeld(_ readers: Int) -> Bool {
        for _ in 0..<readers {
            guard started.wait(timeout: .now() + ReaderTests.patience) == .success else { return false }
        }
        return true
    }

    /// Lets every enumeration run to its end and waits for them. Safe to call twice.
    func finish() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for _ in 0..<count { latch.signal() }
        ended.wait()
    }

    /// The enumerations that ended without an error.
    var completed: Int { completions.load(ordering: .relaxed) }
}
