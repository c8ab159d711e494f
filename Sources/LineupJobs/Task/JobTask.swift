public import Foundation
public import LineupStore
public import Logging
import LineupLocking
import Tracing

/// One job, as an `Operation`: the unit of work the daemon runs on its `OperationQueue`.
///
/// Subclass it and override ``run(in:)``; for work that awaits I/O, subclass ``AsyncJobTask``
/// instead (see <doc:AsyncJobs>). The task gets a private-queue child context of the
/// main context, named after the job, and calls ``run(in:)`` inside that context's
/// `performAndWait`; when `run` returns, the task saves the context (still inside
/// `performAndWait`), which pushes its changes one level up, into the main context, before
/// `main()` returns. If `run` throws, or the task is cancelled, the context is rolled back and
/// reset: nothing the task did reaches the main context. The daemon's flush later writes the
/// main context to disk; only then is the job acknowledged.
///
/// ```swift
/// final class ImportTask: JobTask, @unchecked Sendable {   // restate: Operation is @unchecked
///     let input: URL
///     init(request: JobRequest, input: URL) {
///         self.input = input
///         super.init(request: request)
///     }
///     override func run(in context: ManagedObjectContext) throws -> JobOutcome {
///         for (index, chunk) in chunks.enumerated() {
///             try checkCancellation()              // between chunks
///             ... insert objects into context ...
///             reportProgress(completed: Int64(index + 1), total: Int64(chunks.count))
///         }
///         return JobOutcome(summary: "imported \(count) rows", counts: ["rows": count])
///     }
/// }
/// ```
///
/// Rules for subclasses:
/// - Keep only immutable (`let`) state, set in the initializer: the runner reads the task from
///   other threads, which is why `@unchecked Sendable` is safe to restate.
/// - Do not call `context.save()` yourself: a save pushes into the main context at once, and a
///   later failure could not take it back (the job would run again on retry and must then be
///   idempotent).
/// - Call ``checkCancellation()`` between chunks of work; the daemon cancels tasks that are
///   still running at the end of its shutdown grace period.
/// - Any error thrown fails this attempt only; the daemon keeps running. Throw a
///   ``JobError`` (or a ``RetryableError``) with `isRetryable == false` for bad input. A trap
///   (a crash of the thread) cannot be caught in Swift: it ends the process, the job stays in
///   `active/`, and the next start counts an interruption (after the poison threshold the job
///   is set aside in `failed/`).
///
/// A task also runs on its own, outside a queue (the `lineup run` command): call `start()`,
/// read ``result``, then flush the container.
open class JobTask: Operation, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is `state`, behind a mutex; the rest is
    // immutable after init, and Operation's own state is thread-safe.

    /// The job this task runs.
    public let request: JobRequest
    /// Units done and to do; the runner reads it from other threads.
    public let progress = JobProgress()

    private struct State {
        var result: JobTaskResult?
        var startedAt: Date?
        var finishedAt: Date?
        var onStart: (@Sendable (JobTask) -> Void)?
        var onFinish: (@Sendable (JobTask) -> Void)?
        var lastLoggedDecile = -1
        var keptRowChanges = 0
        /// Set when the attempt was stopped (``stop(_:)``): its time limit ran out, or an operator
        /// cancelled it. Its work is not kept.
        var stopReason: AttemptStopReason?
        /// Set when the attempt's work is being saved: too late to stop it.
        var isKeepingWork = false
        /// The attempt's span to begin and end around the work; nil unless a tracer is bootstrapped.
        var attemptTracing: AttemptTracing?
        /// Set by the runner before it queues the task (``runOnAttemptThreads(_:)``): where the
        /// task is in its asynchronous run. Nil for a task started on the caller's thread.
        var asynchronousPhase: AsynchronousPhase?
        /// The threads that run the attempt of a task the runner queued; nil for one started by hand.
        var attemptThreads: AttemptThreads?
    }

    /// An asynchronous task's phases, as `Operation` reports them to its queue.
    private enum AsynchronousPhase {
        case waiting, executing, finished
    }

    private let state = Locked(State())

    /// Makes a task for `request`. Subclasses set their own (immutable) properties first.
    public init(request: JobRequest) {
        self.request = request
        super.init()
        self.name = "\(request.kind) \(request.jobID)"
    }

    /// The job's work. Runs on the private context's queue (inside its `performAndWait`);
    /// insert, fetch and change objects in `context` only. Return what the job did.
    ///
    /// The default implementation fails with a non-retryable ``JobError``: subclasses must
    /// override it.
    open func run(in context: ManagedObjectContext) throws -> JobOutcome {
        throw JobError(
            .jobFailed, "\(type(of: self)) does not override run(in:)", jobFile: request.jobFilePath,
            isRetryable: false)
    }

    /// The job's id (the job file's `id`, or its spool name).
    public var jobID: String { request.jobID }

    /// A logger with `job`, `kind` and `attempt` in its metadata.
    public var logger: Logger { request.logger }

    /// How the attempt ended; nil until the task has finished.
    public var result: JobTaskResult? {
        state.withLock { $0.result }
    }

    /// When `main()` began; nil if the task never ran.
    public var startedAt: Date? {
        state.withLock { $0.startedAt }
    }

    /// For an attempt that failed: how many row changes its earlier saves (chunks saved with
    /// `context.save()` inside ``run(in:)``) had pushed into the main context before it failed.
    /// A failed attempt discards what it had not saved, but those chunks stay, and a flush may
    /// write them to disk; a re-run upserts them. 0 for an attempt that saved nothing, or that
    /// succeeded.
    public var keptRowChanges: Int {
        state.withLock { $0.keptRowChanges }
    }

    /// When the task finished running; nil if it never ran.
    public var finishedAt: Date? {
        state.withLock { $0.finishedAt }
    }

    /// Throws ``JobError`` ``JobError/Code/cancelled`` when the task has been cancelled. Call it
    /// between chunks of work.
    public func checkCancellation() throws(JobError) {
        if isCancelled {
            throw JobError(.cancelled, "job \(jobID) was cancelled", jobFile: request.jobFilePath)
        }
    }

    /// Records progress. Logs one line each time another tenth of the total is done.
    public func reportProgress(completed: Int64, total: Int64? = nil) {
        let current = progress.update(completed: completed, total: total)
        let snapshot = JobProgress.Snapshot(
            completedUnitCount: completed, totalUnitCount: total ?? current.totalUnitCount)
        guard let fraction = snapshot.fractionCompleted else { return }
        let decile = Int(fraction * 10)
        let shouldLog = state.withLock { state in
            guard decile > state.lastLoggedDecile else { return false }
            state.lastLoggedDecile = decile
            return true
        }
        if shouldLog {
            logger.info(
                "progress",
                metadata: [
                    "completed": "\(snapshot.completedUnitCount)", "total": "\(snapshot.totalUnitCount)",
                    "percent": "\(Int(fraction * 100))",
                ])
        }
    }

    // MARK: - Operation

    /// Starts the task. Started by hand (`lineup run`, the test kit), it runs on the caller's
    /// thread and has finished when `start()` returns, as a synchronous `Operation` does. Queued
    /// by the daemon, it is asynchronous: `start()` hands the attempt to the runner's own threads
    /// (see `AttemptThreads` for why) and returns at once, and the task tells its
    /// `OperationQueue` when it has finished, which frees its slot.
    ///
    /// A task cancelled before it started never runs its attempt; its queue still starts it, to
    /// finish it, and `onFinish` hears of that here. (Not from `completionBlock`: corelibs
    /// dispatches every operation's completion block onto a global queue, a thread hop for each
    /// job.)
    public final override func start() {
        guard let threads = state.withLock({ $0.attemptThreads }) else {
            super.start()
            reportFinishedWithoutRunning()
            return
        }
        if isCancelled {
            reportFinishedWithoutRunning()
            enterPhase(.finished)
            return
        }
        enterPhase(.executing)
        threads.run {
            self.attempt { self.enterPhase(.finished) }
        }
    }

    public final override var isAsynchronous: Bool {
        state.withLock { $0.asynchronousPhase } != nil
    }

    public final override var isExecuting: Bool {
        guard let phase = state.withLock({ $0.asynchronousPhase }) else { return super.isExecuting }
        return phase == .executing
    }

    public final override var isFinished: Bool {
        guard let phase = state.withLock({ $0.asynchronousPhase }) else { return super.isFinished }
        return phase == .finished
    }

    /// Moves an asynchronous task to `phase`, and tells its queue (key-value notifications are
    /// how an `OperationQueue` hears that an asynchronous operation started or finished).
    private func enterPhase(_ phase: AsynchronousPhase) {
        willChangeValue(forKey: "isExecuting")
        if phase == .finished { willChangeValue(forKey: "isFinished") }
        state.withLock { $0.asynchronousPhase = phase }
        didChangeValue(forKey: "isExecuting")
        if phase == .finished { didChangeValue(forKey: "isFinished") }
    }

    private func reportFinishedWithoutRunning() {
        let finishedWithoutRunning = state.withLock { state in state.startedAt == nil ? state.onFinish : nil }
        finishedWithoutRunning?(self)
    }

    /// Runs the attempt on the caller's thread (a task started by hand): see the type's
    /// documentation. Not overridable; override ``run(in:)``.
    ///
    /// A synchronous `Operation` has finished when `main()` returns, so for an ``AsyncJobTask``,
    /// whose work goes on after `attempt(then:)` returns, the caller's thread waits for it here.
    /// Only here: in the daemon, no thread waits for an async task's work.
    public final override func main() {
        let finished = Locked(false)
        attempt { finished.withLock { $0 = true } }
        finished.withLock(when: { $0 }) { _ in }
    }

    /// Runs the attempt, announces its start and its end (``onStart(_:)``, ``onFinish(_:)``),
    /// and then calls `whenFinished`: before it returns for a task whose work is synchronous,
    /// after the last await of its work for an ``AsyncJobTask``.
    private func attempt(then whenFinished: @escaping @Sendable () -> Void) {
        let (onStart, tracing) = state.withLock { state in
            state.startedAt = Date()
            return (state.onStart, state.attemptTracing)
        }
        onStart?(self)
        let span = tracing?.start()
        let finish: @Sendable (JobTaskResult) -> Void = { result in
            if let span {
                AttemptTracing.end(span, with: result)
            }
            let onFinish = self.state.withLock { state in
                state.result = result
                state.finishedAt = Date()
                return state.onFinish
            }
            onFinish?(self)
            whenFinished()
        }
        if let span {
            // An async task's work, started inside, inherits the span as its task-local context.
            ServiceContext.$current.withValue(span.context) { execute(then: finish) }
        } else {
            execute(then: finish)
        }
    }

    private func execute(then finish: @escaping @Sendable (JobTaskResult) -> Void) {
        if isCancelled {
            if let stopReason = state.withLock({ $0.stopReason }) {
                finish(.failed(error(for: stopReason)))
            } else {
                finish(.cancelled)
            }
            return
        }
        let context = request.container.newTaskContext(name: request.jobID)
        runAndKeepWork(in: context) { outcome in
            finish(self.result(of: outcome, in: context))
        }
    }

    /// The attempt's result; for a failure, after its context is rolled back.
    private func result(of outcome: Result<JobOutcome, any Error>, in context: ManagedObjectContext) -> JobTaskResult {
        let error: any Error
        switch outcome {
        case let .success(kept):
            return .succeeded(kept)
        case let .failure(failure):
            error = failure
        }
        let kept = context.performAndWait { () -> Int in
            context.rollback()
            context.reset()
            return context.savedRowChangeCount
        }
        let stopReason = state.withLock { state in
            state.keptRowChanges = kept
            return state.stopReason
        }
        if let stopReason {
            return .failed(self.error(for: stopReason))
        }
        if isCancelled {
            return .cancelled
        }
        if let jobError = error as? JobError {
            return .failed(jobError.naming(jobFile: request.jobFilePath))
        }
        return .failed(error)
    }

    /// Runs the work in `context` and, when it returns, keeps it (saves the context into the
    /// main context), then calls `finish` with the outcome, here before it returns.
    /// ``AsyncJobTask`` overrides this to run its async work.
    func runAndKeepWork(
        in context: ManagedObjectContext, then finish: @escaping @Sendable (Result<JobOutcome, any Error>) -> Void
    ) {
        finish(
            Result {
                try context.performAndWait { () throws -> JobOutcome in
                    let outcome = try run(in: context)
                    try keepWork(of: context)
                    return outcome
                }
            })
    }

    /// The end of a successful attempt, on the context's queue. Past these checks the work is
    /// kept: a cancel or a timeout that comes later is too late.
    func keepWork(of context: ManagedObjectContext) throws {
        try checkCancellation()
        try beginKeepingWork()
        try context.save()
    }

    // MARK: - Stopping an attempt

    /// Stops the attempt unless its work is being saved already: the task is cancelled, and
    /// whatever it returns or throws from then on fails the attempt with the reason's error
    /// (``JobError/Code/timedOut``, ``JobError/Code/cancelledByOperator``); its final save never
    /// happens (chunks it saved before stay, as for any failed attempt: see ``keptRowChanges``).
    /// One lock decides between this and the final save, so a job is either saved or stopped,
    /// never both.
    ///
    /// - Returns: false when it was too late (the task was saving or had finished), or when
    ///   the attempt was stopped already.
    func stop(_ reason: AttemptStopReason) -> Bool {
        let stopped = state.withLock { state in
            guard !state.isKeepingWork, state.result == nil, state.stopReason == nil else { return false }
            state.stopReason = reason
            return true
        }
        if stopped {
            cancel()
        }
        return stopped
    }

    /// The last step before the save: throws when the attempt was stopped, and otherwise closes
    /// the door on a stop.
    private func beginKeepingWork() throws(JobError) {
        let stopReason = state.withLock { state in
            if state.stopReason == nil {
                state.isKeepingWork = true
            }
            return state.stopReason
        }
        if let stopReason {
            throw error(for: stopReason)
        }
    }

    /// What an attempt stopped for `reason` fails with.
    func error(for reason: AttemptStopReason, stopped: Bool = true) -> JobError {
        switch reason {
        case let .timedOut(limit):
            timedOutError(after: limit, stopped: stopped)
        case .cancelledByOperator:
            JobError(
                .cancelledByOperator,
                stopped
                    ? "job \(jobID) was cancelled by an operator while it ran; what it had not saved was discarded"
                    : "job \(jobID) was cancelled by an operator and did not stop",
                jobFile: request.jobFilePath)
        }
    }

    func timedOutError(after limit: Duration, stopped: Bool = true) -> JobError {
        let seconds = limit / .seconds(1)
        let limitText = seconds.rounded() == seconds ? "\(Int(seconds))" : "\(seconds)"
        return JobError(
            .timedOut,
            stopped
                ? "job \(jobID) timed out after \(limitText) s and was cancelled"
                : "job \(jobID) timed out after \(limitText) s and did not stop when cancelled",
            jobFile: request.jobFilePath, isRetryable: stopped)
    }

    // MARK: - Runner hooks

    /// Makes the task asynchronous: `start()` runs the attempt on `threads` instead of the
    /// thread that starts it. The runner calls it before it queues the task.
    func runOnAttemptThreads(_ threads: AttemptThreads) {
        state.withLock { state in
            state.attemptThreads = threads
            state.asynchronousPhase = .waiting
        }
    }

    /// Where an async task's work comes back to once its last await is over: the runner's
    /// threads, or nil for a task started by hand (it ends on the Swift task then).
    var attemptThreads: AttemptThreads? {
        state.withLock { $0.attemptThreads }
    }

    /// Gives the attempt a span, begun when `main()` begins and ended with its result.
    func traceAttempt(_ tracing: AttemptTracing) {
        state.withLock { $0.attemptTracing = tracing }
    }

    /// Called on the task's thread when `main()` begins.
    func onStart(_ handler: @escaping @Sendable (JobTask) -> Void) {
        state.withLock { $0.onStart = handler }
    }

    /// Called on the task's thread when `main()` has its result, or, for a task cancelled before
    /// it started, when its queue finishes it without running `main()` (`startedAt` is nil then).
    func onFinish(_ handler: @escaping @Sendable (JobTask) -> Void) {
        state.withLock { $0.onFinish = handler }
    }

    /// The result for a task that finished without running `main()`: cancelled before it
    /// started, by shutdown (given back), or stopped by an operator (failed).
    var finalResult: JobTaskResult {
        if let result { return result }
        if let stopReason = state.withLock({ $0.stopReason }) { return .failed(error(for: stopReason)) }
        return .cancelled
    }
}
