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
/// The attempt starts the work as a Swift `Task` of medium priority on the global concurrent
/// executor, and no thread waits for it: in the daemon, the attempt's thread goes back to the
/// runner's threads, and when the work returns, its save into the main context runs through
/// the context's async `perform`, and the rest of the attempt (the report) on the runner's
/// threads again. The job holds its slot in the queue's `maxConcurrentOperationCount` until
/// then, as a synchronous task does, but not a thread while it awaits.
///
/// A task started by hand is a synchronous `Operation`: `start()` returns once it has finished,
/// so the caller's thread waits for the work. Do not call `start()` yourself from async code:
/// that wait would block a thread of the pool that runs Swift tasks, which the work itself
/// needs. The test kit starts tasks on a thread of its own.
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

    override func runAndKeepWork(
        in context: ManagedObjectContext, then finish: @escaping @Sendable (Result<JobOutcome, any Error>) -> Void
    ) {
        let threads = attemptThreads
        // Medium, a Swift task's default, rather than the utility quality of service of the
        // attempt's thread, which the task would inherit.
        let task = Task(priority: .medium) {
            let outcome: Result<JobOutcome, any Error>
            do {
                let kept = try await run(in: context)
                try await context.perform { try self.keepWork(of: context) }
                outcome = .success(kept)
            } catch {
                outcome = .failure(error)
            }
            work.withLock { $0 = nil }
            // What follows writes the report and may roll the context back: blocking work, for
            // the attempt's threads rather than the pool that runs Swift tasks.
            if let threads {
                threads.run { finish(outcome) }
            } else {
                finish(outcome)
            }
        }
        work.withLock { $0 = task }
        // cancel() reads `work` after it sets isCancelled: whichever of the two comes second
        // cancels the task.
        if isCancelled {
            task.cancel()
        }
    }
}
