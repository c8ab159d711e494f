import Dispatch
import Foundation
public import LineupStore
import LineupLocking

/// A job whose work is `async`: it awaits I/O (an HTTP download, a PostgreSQL query) without
/// holding the context's queue while it waits.
///
/// It is still an `Operation` on the daemon's `OperationQueue`, with its own private child
/// context of the main context, and everything ``JobTask`` says holds: the context is saved
/// into the main context when ``run(in:)-1qlf1`` returns, and rolled back when it throws, when the
/// task is cancelled, or when it runs past its time limit.
///
/// ```swift
/// final class FetchTask: AsyncJobTask, @unchecked Sendable {   // restate: Operation is @unchecked
///     let url: URL
///     ...
///     override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
///         let body = try await http.get(url)                   // no queue is held while it waits
///         let rows = try await context.perform {               // the context's queue, as Core Data's
///             try Importer(context: context).insert(body)      // managed objects stay in here
///         }
///         return JobOutcome(summary: "imported \(rows) rows")
///     }
/// }
/// ```
///
/// Touch the context's objects only inside `context.perform { }`; objects are not `Sendable`,
/// so the compiler keeps them there. Pass object IDs across awaits, not objects.
///
/// ## How the operation waits for its work
///
/// `main()` starts the work as a Swift `Task` of medium priority on the global concurrent
/// executor and then waits for it, once, on the attempt's own thread. In the daemon that thread
/// is the one of the attempt's own serial queue (see `BlockingWork`), never one of the threads
/// that run Swift tasks (on Linux, the default-QoS pool's), and the work never needs it: it runs
/// on the executor, and its `perform` blocks on the context's queue. So the wait cannot
/// deadlock, and the executor, which keeps about one thread per core, never loses a thread to
/// it. It holds one thread per running job, as a synchronous task does, within the queue's
/// `maxConcurrentOperationCount`.
///
/// Do not call `start()` yourself from async code: that wait would then block a thread of the
/// pool. The daemon and the test kit start tasks on threads of their own.
///
/// ## Cancellation
///
/// `cancel()`, which the daemon calls at the end of its shutdown grace period, for a time
/// limit and for `lineup cancel`, also cancels the Swift task: `Task.isCancelled` turns true,
/// `try Task.checkCancellation()` throws, and cancellation-aware awaits (AsyncHTTPClient's
/// requests, `Task.sleep`) end early. ``JobTask/checkCancellation()`` works here too.
open class AsyncJobTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: as JobTask's; the one mutable property, `work`, is behind a lock.

    /// The running work, so that `cancel()` can reach it.
    private let work = Locked<Task<Void, Never>?>(nil)

    /// The job's work. Runs on the global concurrent executor; reach the context's objects
    /// through `await context.perform { }`. Return what the job did.
    ///
    /// The default implementation fails with a non-retryable ``JobError``: subclasses must
    /// override it.
    open func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        throw JobError(
            .jobFailed, "\(type(of: self)) does not override run(in:) async", jobFile: request.jobFilePath,
            isRetryable: false)
    }

    /// Closed to subclasses: an async task's work is the `async` ``run(in:)``.
    public final override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        preconditionFailure("AsyncJobTask runs its async run(in:)")
    }

    /// Cancels the operation and its Swift task.
    open override func cancel() {
        super.cancel()
        work.withLock { $0 }?.cancel()
    }

    override func runAndKeepWork(in context: ManagedObjectContext) throws -> JobOutcome {
        let finished = DispatchSemaphore(value: 0)
        let result = Locked<Result<JobOutcome, any Error>?>(nil)
        // Medium, not the utility priority of the operation's thread: see "How the operation
        // waits for its work".
        let task = Task(priority: .medium) {
            let outcome: Result<JobOutcome, any Error>
            do {
                outcome = .success(try await run(in: context))
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            finished.signal()
        }
        work.withLock { $0 = task }
        // cancel() reads `work` after it sets isCancelled: whichever of the two comes second
        // cancels the task.
        if isCancelled {
            task.cancel()
        }
        // The one wait: see "How the operation waits for its work".
        finished.wait()
        work.withLock { $0 = nil }
        guard let outcome = result.withLock({ $0 }) else {
            preconditionFailure("the work signalled before it stored its result")
        }
        let kept = try outcome.get()
        try context.performAndWait {
            try keepWork(of: context)
        }
        return kept
    }
}
