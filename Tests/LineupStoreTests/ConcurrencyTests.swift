import Dispatch
import Foundation
import LineupStore
import Synchronization
import Testing

@Suite(.serialized) struct ConcurrencyTests {
    @Test(arguments: StoreKind.allCases) func performAndWaitIsReentrantAndReturnsAndRethrows(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let value = context.performAndWait {
            context.performAndWait {
                context.performAndWait { 42 }
            }
        }
        #expect(value == 42)
        struct Expected: Error {}
        #expect(throws: Expected.self) {
            try context.performAndWait { try context.performAndWait { throw Expected() } }
        }
        #expect(!context.isOnQueue)
        #expect(context.performAndWait { context.isOnQueue })
    }

    @Test(arguments: StoreKind.allCases) func childPerformAndWaitWaitsUpwardOnly(_ store: StoreKind) throws {
        // child → main → writer, each nested inside the previous one's block.
        let stack = try TemporaryStack(store)
        let child = stack.container.newTaskContext(name: "child")
        let depth = child.performAndWait {
            stack.main.performAndWait {
                stack.container.writerContext.performAndWait { 3 }
            }
        }
        #expect(depth == 3)
    }

    /// Eight child contexts on an OperationQueue each insert and save 1,000 times into the main
    /// context, while another thread saves main → writer → disk in a loop. Every row ends up on
    /// disk exactly once.
    @Test(arguments: StoreKind.allCases) func eightChildrenSavingWhileTheMainContextFlushesInALoop(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let container = stack.container
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let workers = 8
        let savesPerWorker = 1_000
        for worker in 0..<workers {
            queue.addOperation {
                let context = container.newTaskContext(name: "worker-\(worker)")
                for save in 0..<savesPerWorker {
                    context.performAndWait {
                        let entry = Entry(context: context)
                        entry.location = "w\(worker)"
                        entry.rating = save
                        try! context.save()
                        context.reset()
                    }
                }
            }
        }
        let done = Atomic<Bool>(false)
        let flushes = Atomic<Int>(0)
        let flusher = Thread {
            while !done.load(ordering: .acquiring) {
                try! container.flush()
                flushes.add(1, ordering: .relaxed)
            }
        }
        flusher.start()
        queue.waitUntilAllOperationsAreFinished()
        done.store(true, ordering: .releasing)
        while !flusher.isFinished { usleep(1_000) }
        try container.flush()
        #expect(flushes.load(ordering: .relaxed) > 1)
        #expect(try stack.rowsOnDisk("Entry") == workers * savesPerWorker)
        let distinct = try TemporaryStack.reopen(stack) { context in
            let all = try context.fetch(FetchRequest<Entry>())
            return Set(all.map { "\($0.location!)-\($0.rating!)" }).count
        }
        #expect(distinct == workers * savesPerWorker)
        if store == .sqlite { #expect(try container.sqliteStore.integrityCheck() == "ok") }
    }

    @Test(arguments: StoreKind.allCases) func readersSeeEveryRowWhileItMovesUpTheStack(_ store: StoreKind) throws {
        // A row saved in a child is visible to a fresh sibling at every moment: in the main
        // context, in the writer, or on disk.
        let stack = try TemporaryStack(store)
        let container = stack.container
        let done = Atomic<Bool>(false)
        let flusher = Thread {
            while !done.load(ordering: .acquiring) { try! container.flush() }
        }
        flusher.start()
        for round in 0..<200 {
            let child = container.newTaskContext(name: "child")
            try child.performAndWait {
                child.insertEntry("round-\(round)")
                try child.save()
            }
            let reader = container.newTaskContext(name: "reader")
            let seen = try reader.performAndWait { try reader.count(for: FetchRequest<Entry>()) }
            #expect(seen == round + 1)
        }
        done.store(true, ordering: .releasing)
        while !flusher.isFinished { usleep(1_000) }
    }
}
