import Foundation
import LineupStore
import Testing

/// A managed object or a context used off its context's queue traps, in release builds too, with
/// a message that names the context and where the caller was. Each case runs in a child process
/// (an exit test), which the trap ends.
@Suite struct ConfinementTests {
    @Test(arguments: StoreKind.allCases) func anObjectReadOnAnotherContextsQueueTraps(_ store: StoreKind) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TemporaryStack.forExitTest()
            let job = stack.container.newTaskContext(name: "job-1")
            let entry = job.performAndWait { job.insertEntry("Steamer Lane") }
            stack.main.performAndWait { _ = entry.location }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("of context job-1 used on the queue of context main: use perform or performAndWait"), "\(message)")
    }

    @Test(arguments: StoreKind.allCases) func anObjectWrittenOutsideAnyContextTraps(_ store: StoreKind) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TemporaryStack.forExitTest()
            let job = stack.container.newTaskContext(name: "job-2")
            let entry = job.performAndWait { job.insertEntry("Mavericks") }
            entry.rating = 5
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("of context job-2 used outside any context's queue"), "\(message)")
    }

    @Test(arguments: StoreKind.allCases) func aContextUsedOutsideItsQueueTraps(_ store: StoreKind) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TemporaryStack.forExitTest()
            let job = stack.container.newTaskContext(name: "job-3")
            job.insertEntry("Ocean Beach")
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("context job-3 used outside any context's queue"), "\(message)")
    }

    @Test(arguments: StoreKind.allCases) func aContextSavedFromAnotherContextsQueueTraps(_ store: StoreKind) async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TemporaryStack.forExitTest()
            let job = stack.container.newTaskContext(name: "job-4")
            try stack.main.performAndWait { try job.save() }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("context job-4 used on the queue of context main"), "\(message)")
    }

    /// The check follows the queue, not the thread: a child's `performAndWait` runs on the
    /// caller's thread, and inside it the caller's objects are off their queue, as they are for
    /// Core Data; after it, they are on it again.
    @Test(arguments: StoreKind.allCases) func objectsAreUsableOnTheirQueueAroundAChildsPerformAndWait(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let main = stack.main
        let child = stack.container.newTaskContext(name: "child")
        let location = main.performAndWait {
            let entry = main.insertEntry("Rincon")
            let childSawMain = child.performAndWait { main.isOnQueue }
            #expect(!childSawMain)
            #expect(main.isOnQueue)
            return entry.location
        }
        #expect(location == "Rincon")
        #expect(!main.isOnQueue && !child.isOnQueue)
    }
}

extension TemporaryStack {
    /// A stack whose directory is already removed: the trap ends the process before `deinit`
    /// could remove it, and open SQLite connections go on working on the unlinked files.
    static func forExitTest() throws -> TemporaryStack {
        let stack = try TemporaryStack()
        try FileManager.default.removeItem(at: stack.directory)
        return stack
    }
}
