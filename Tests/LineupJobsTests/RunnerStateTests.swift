import Foundation
@testable import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

/// The runner's state machine driven by hand: inputs in, actions out, no queue, no timer, no
/// storage, no thread. Each test plays the part of the runner, feeding back what its actions
/// would bring.
@Suite final class RunnerStateTests {
    typealias State = RunnerState<FakeHeldJob>
    typealias Action = RunnerAction<FakeHeldJob>

    let directory: URL
    let container: PersistentContainer
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var configuration: DaemonConfiguration
    /// What the storage says of jobs that it settled (the tests' own: nothing, unless set).
    var settledInStorage: [String: SettledJobOutcome] = [:]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "lineup-state-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try PersistentContainer(url: directory.appending(path: "store.sqlite"), model: testModel, logger: Logger(label: "test"))
        configuration = DaemonConfiguration(
            storeURL: directory.appending(path: "store.sqlite"), spoolURL: directory, inputDirectory: directory,
            outputDirectory: directory)
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(2), maxDelay: .seconds(60))
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func makeState() -> State {
        let storage = settledInStorage
        return State(
            configuration: configuration,
            storage: .init(settledOutcome: { storage[$0] }, lastDone: { _ in nil }, pendingJobIDs: { _ in [] }),
            jitter: { 0.5 }, reportDate: { [now] in now })
    }

    func job(_ name: String, _ fields: String = "") -> FakeHeldJob {
        FakeHeldJob(name: name, contents: Data(#"{"kind": "add-note"\#(fields)}"#.utf8))
    }

    func task(for job: FakeHeldJob) throws -> JobTask {
        JobTask(
            request: JobRequest(
                jobID: job.name, name: job.name, file: try job.decodeJobFile(), jobFilePath: job.enqueuedFileName, attempt: 1,
                paths: PathPolicy(inputDirectory: directory, outputDirectory: directory), container: container,
                logger: Logger(label: "test")))
    }

    /// Claims `job` and plays the runner's part until its task is queued; returns the task.
    @discardableResult
    func claimAndQueue(_ job: FakeHeldJob, in state: inout State) throws -> JobTask {
        let claimed = state.claimed(job, now: now, at: .now)
        #expect(claimed.contains { if case .prepareTask(job.claim) = $0 { true } else { false } })
        let task = try task(for: job)
        let started = state.taskPrepared(claim: job.claim, .success(task))
        guard case let .startAttempt(claim, prepared)? = started.first, claim == job.claim, prepared === task else {
            Issue.record("expected the prepared task to start, got \(started)")
            return task
        }
        state.attemptQueued(claim: job.claim, task: task)
        return task
    }

    func finished(_ job: FakeHeldJob) -> FinishedJob<FakeHeldJob> {
        FinishedJob(
            claimed: job, report: JobResultReport(name: job.name, id: nil, kind: "add-note", attempts: 1, startedAt: now, finishedAt: now),
            staged: nil)
    }

    func flushReport() -> FlushReport {
        FlushReport(rowsFromMain: 1, rowsWritten: 1, duration: .milliseconds(1), mainContextDuration: .zero, messagesWritten: 0)
    }

    // MARK: -

    @Test("a job goes claimed → queued → awaiting flush → settled, and is announced at each step")
    func aJobThatSucceedsIsAcknowledgedByTheFlushThatCarriedIt() throws {
        var state = makeState()
        let one = job("one")
        let task = try claimAndQueue(one, in: &state)
        #expect(state.live[one.claim]?.state.stage == .queued)
        #expect(state.queuedTaskCount == 1)

        let ended = state.attemptEnded(
            claim: one.claim, task: task, AttemptEnding(result: .succeeded(JobOutcome(summary: "ok")), startedAt: now, keptRowChanges: 0),
            finished: finished(one))
        #expect(state.live[one.claim]?.state.stage == .awaitingFlush)
        #expect(ended.events == ["jobFinished one"])
        // Nothing else is queued: the job is acknowledged at once, not at the interval.
        #expect(ended.contains { if case .flushSoon(.idle) = $0 { true } else { false } })
        #expect(state.isEarlyFlushDue)

        let group = state.flushBegins()
        #expect(group.map(\.claimed.name) == ["one"])
        #expect(!state.isEarlyFlushDue)
        let (result, acknowledged) = state.flushEnded(
            .idle, after: .milliseconds(1), CommitOutcome(flush: .success(flushReport()), filed: [one.claim]), at: .now, date: now)
        #expect(try result.get().acknowledged == ["one"])
        #expect(acknowledged.events == ["jobAcknowledged one", "flushed"])
        #expect(state.live.isEmpty)
        #expect(state.lastFlush?.acknowledgedCount == 1)
    }

    @Test("a retryable failure with attempts left waits for its backoff, counted in storage, then runs its next attempt")
    func aFailedAttemptIsRetriedAfterItsBackoff() throws {
        var state = makeState()
        let one = job("one")
        let task = try claimAndQueue(one, in: &state)
        let ended = state.attemptEnded(
            claim: one.claim, task: task,
            AttemptEnding(result: .failed(Flaky("flaky")), startedAt: now, keptRowChanges: 0), finished: nil)
        #expect(state.live[one.claim]?.state.stage == .waitingForRetry)
        #expect(ended.contains { if case .recordFailedAttempt(one.claim) = $0 { true } else { false } })
        #expect(ended.events == ["retryScheduled one"])
        // The backoff ceiling after attempt 1 is the base delay (2 s); the jitter is 0.5.
        let retry = ended.compactMap { action -> Duration? in
            if case let .schedule(delay, .retryDue(claim)) = action, claim == one.claim { return delay }
            return nil
        }
        #expect(retry == [.seconds(1)])
        #expect(!ended.contains { if case .settle = $0 { true } else { false } })

        let due = state.timerFired(.retryDue(claim: one.claim))
        guard case let .startAttempt(claim, prepared)? = due.first else {
            Issue.record("expected the next attempt, got \(due)")
            return
        }
        #expect(claim == one.claim)
        #expect(prepared == nil)
        #expect(state.live[one.claim]?.attempt == 2)
    }

    @Test("a job parked on another that fails is failed after it, with its reason, before the storage knows of it")
    func aDependentFailsWithTheReasonOfTheJobItWaitedFor() throws {
        var state = makeState()
        let first = job("first", #", "id": "first", "maxAttempts": 1"#)
        let second = job("second", #", "id": "second", "after": ["first"]"#)
        let task = try claimAndQueue(first, in: &state)
        _ = state.claimed(second, now: now, at: .now)
        let parked = state.taskPrepared(claim: second.claim, .success(try self.task(for: second)))
        #expect(parked.events == ["jobWaitingForDependencies second"])
        #expect(state.live[second.claim]?.state.stage == .waitingForDependencies)

        let ended = state.attemptEnded(
            claim: first.claim, task: task, AttemptEnding(result: .failed(Flaky("boom")), startedAt: now, keptRowChanges: 0),
            finished: nil)
        #expect(ended.events == ["jobFailed first", "jobFailed second"])
        #expect(ended.settledNames == ["first", "second"])
        let reports = ended.compactMap { action -> JobFailureReport? in
            if case let .settle(_, .failed(report), _) = action { return report }
            return nil
        }
        #expect(reports.last?.reason.contains("job first in `after` failed: ") == true)
        #expect(reports.last?.reason.contains("boom") == true)
        #expect(state.live.isEmpty)
    }

    @Test("a stop gives back the jobs that wait, leaves the queued ones to finish, and claims no more")
    func aStopReleasesTheJobsThatWaitAndClaimsNoMore() throws {
        var state = makeState()
        let waiting = job("waiting")
        let running = job("running")
        let task = try claimAndQueue(waiting, in: &state)
        _ = state.attemptEnded(
            claim: waiting.claim, task: task, AttemptEnding(result: .failed(Flaky("later")), startedAt: now, keptRowChanges: 0),
            finished: nil)
        try claimAndQueue(running, in: &state)
        let window = state.claimRoundBegins(mayFindNewJobs: true, roundTrip: nil, now: .now)
        let windowBefore = try #require(window)
        #expect(state.roomToClaim(within: windowBefore) != nil)

        let stopping = state.stopStarting()
        #expect(stopping.settledNames == ["waiting"])
        #expect(stopping.events == ["jobReleased waiting"])
        #expect(state.live[running.claim]?.state.stage == .queued)
        #expect(state.roomToClaim(within: windowBefore) == nil)

        // Its task never returned: it is left in active/ for the next start.
        let (abandoned, stopped) = state.stopped()
        #expect(abandoned.map(\.name) == ["running"])
        #expect(stopped.settledNames.isEmpty)
        #expect(state.phase == .stopped)
    }

    @Test("flushes that fail stall acknowledgements: claiming pauses at the backlog limit, and the daemon gives up at the timeout")
    func failingFlushesPauseClaimingThenGiveUp() throws {
        configuration.flushBacklogLimit = 1
        configuration.flushFailureTimeout = .seconds(10)
        var state = makeState()
        let one = job("one")
        let task = try claimAndQueue(one, in: &state)
        _ = state.attemptEnded(
            claim: one.claim, task: task, AttemptEnding(result: .succeeded(JobOutcome(summary: "ok")), startedAt: now, keptRowChanges: 0),
            finished: finished(one))
        let start = ContinuousClock.now
        _ = state.flushBegins()
        let (first, failed) = state.flushEnded(
            .interval, after: .zero, CommitOutcome(flush: .failure(DiskFull()), filed: []), at: start, date: now)
        #expect(throws: DiskFull.self) { try first.get() }
        #expect(failed.events == ["flushFailed"])
        #expect(state.isClaimingPaused)
        #expect(state.roomToClaim(within: 8) == nil)
        #expect(!failed.contains { if case .giveUpOnAcknowledgements = $0 { true } else { false } })

        _ = state.flushBegins()
        let (_, stillFailing) = state.flushEnded(
            .interval, after: .zero, CommitOutcome(flush: .failure(DiskFull()), filed: []), at: start + .seconds(11), date: now)
        #expect(stillFailing.contains { if case .giveUpOnAcknowledgements = $0 { true } else { false } })
        // The job still waits for a flush that succeeds.
        #expect(state.live[one.claim]?.state.stage == .awaitingFlush)
    }

    @Test("an operator's cancel fails a waiting job at once, and stops a running one, which fails once its grace is over")
    func anOperatorsCancelFailsWaitingJobsAndStopsRunningOnes() throws {
        var state = makeState()
        let waiting = job("waiting", #", "after": ["nobody"]"#)
        let running = job("running")
        _ = state.claimed(waiting, now: now, at: .now)
        _ = state.taskPrepared(claim: waiting.claim, .success(try task(for: waiting)))
        let task = try claimAndQueue(running, in: &state)

        let (actedOn, notHeld, actions) = state.operatorsCancelled(["waiting", "running", "gone"])
        #expect(actedOn == ["waiting", "running"])
        #expect(notHeld == ["gone"])
        #expect(actions.events == ["jobFailed waiting"])
        let stop = actions.compactMap { action -> AttemptStopReason? in
            if case let .stopTask(claim, stopped, reason) = action, claim == running.claim, stopped === task { return reason }
            return nil
        }
        #expect(stop == [.cancelledByOperator])

        let grace = state.stopRequested(claim: running.claim, task: task, for: .cancelledByOperator, stopped: true)
        #expect(grace.contains { if case .schedule(_, .stopGraceOver(running.claim, _, .cancelledByOperator)) = $0 { true } else { false } })
        let givenUp = state.timerFired(.stopGraceOver(claim: running.claim, task, .cancelledByOperator))
        #expect(givenUp.events == ["jobFailed running"])
        #expect(state.runawayJobs.map(\.name) == ["running"])
        // When its thread returns at last, nothing is settled twice.
        let late = state.attemptEnded(
            claim: running.claim, task: task, AttemptEnding(result: .cancelled, startedAt: now, keptRowChanges: 0), finished: nil)
        #expect(late.settledNames.isEmpty)
        #expect(state.runawayJobs.isEmpty)
    }
}

/// A claimed job as a storage would hand it out: its name, a claim, and its file's bytes.
struct FakeHeldJob: HeldJob {
    let name: String
    let contents: Data
    var failedAttempts = 0
    var interruptions = 0

    var claim: String { "claim-\(name)" }
    var enqueuedFileName: String { "\(name).job.json" }

    func decodeJobFile() throws(SpoolError) -> JobFile {
        try JobFile(data: contents, path: enqueuedFileName)
    }
}

struct DiskFull: Error {}

/// A failure that another attempt could get past.
struct Flaky: RetryableError, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    var isRetryable: Bool { true }
}

extension [RunnerAction<FakeHeldJob>] {
    /// The events announced, as "<case> <job name>", in order.
    var events: [String] {
        compactMap { action in
            guard case let .announce(event) = action else { return nil }
            switch event {
            case let .jobFinished(info): return "jobFinished \(info.name)"
            case let .jobAcknowledged(info, _): return "jobAcknowledged \(info.name)"
            case let .jobFailed(info, _): return "jobFailed \(info.name)"
            case let .jobReleased(info): return "jobReleased \(info.name)"
            case let .retryScheduled(info, _, _): return "retryScheduled \(info.name)"
            case let .jobWaitingForDependencies(info, _): return "jobWaitingForDependencies \(info.name)"
            case let .jobClaimed(info): return "jobClaimed \(info.name)"
            case .flushed: return "flushed"
            case .flushFailed: return "flushFailed"
            default: return "\(event)"
            }
        }
    }

    /// The names of the jobs settled in storage (failed or released), in order.
    var settledNames: [String] {
        compactMap { action in
            guard case let .settle(job, _, _) = action else { return nil }
            return job.name
        }
    }
}
