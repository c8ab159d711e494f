import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

/// Async tasks: the same Operation, child context and save as a synchronous task, with work that
/// awaits; cancellation reaches the Swift task; waiting jobs hold no thread of the pool.
@Suite(.daemonTestTimeLimit) final class AsyncJobTaskTests {
    let directory: URL
    let container: PersistentContainer

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "lineup-async-task-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try PersistentContainer(
            url: directory.appending(path: "store.sqlite"), model: testModel, logger: Logger(label: "test"))
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func request(_ kind: String, _ parameters: [String: JSONValue] = [:]) throws -> JobRequest {
        JobRequest(
            jobID: "job-1", name: "20260101T000000.000000Z-1-abc-1", file: try JobFile(kind: kind, parameters: parameters),
            jobFilePath: "/spool/active/job-1.job.json",
            paths: PathPolicy(inputDirectory: directory, outputDirectory: directory), container: container,
            logger: Logger(label: "test"))
    }

    func rowsInMain() throws -> Int {
        try container.mainContext.performAndWait { try container.mainContext.count(for: FetchRequest<TestRow>()) }
    }

    @Test func successSavesIntoTheMainContextButNotToDisk() async throws {
        let task = try testRegistry().makeTask(for: request("async-insert-rows", ["count": 4]))
        await startOnItsOwnThread(task)
        let outcome = try #require(task.result?.outcome)
        #expect(outcome.counts == ["rows": 4])
        #expect(try rowsInMain() == 4)
        #expect(try container.rowCount(of: "TestRow") == 0)
        #expect(task.progress.snapshot == JobProgress.Snapshot(completedUnitCount: 4, totalUnitCount: 4))
        try container.flush()
        #expect(try container.rowCount(of: "TestRow") == 4)
    }

    @Test func failureDiscardsWhatTheWorkHadPerformed() async throws {
        let task = try testRegistry().makeTask(for: request("async-insert-rows", ["count": 4, "failAfter": 2]))
        await startOnItsOwnThread(task)
        let error = try #require(task.result?.error as? AsyncInsertRowsTask.Failure)
        #expect(error == AsyncInsertRowsTask.Failure(afterRows: 2))
        #expect(try rowsInMain() == 0)
        #expect(!container.mainContext.performAndWait { container.mainContext.hasChanges })
    }

    @Test func cancelReachesTheSwiftTaskAndDiscardsItsWork() async throws {
        let running = Latch()
        let sawCancellation = Latch()
        let task = try testRegistry(running: running, sawCancellation: sawCancellation).makeTask(for: request("async-sleep"))
        let finished = Task { await startOnItsOwnThread(task) }
        #expect(await running.opened())
        task.cancel()
        // The hour-long sleep ends only if the cancel reached it.
        #expect(await sawCancellation.opened())
        await finished.value
        guard case .cancelled = try #require(task.result) else {
            Issue.record("expected a cancelled result, got \(String(describing: task.result))")
            return
        }
        #expect(try rowsInMain() == 0)
    }

    @Test func taskCancelledBeforeItStartsNeverRunsItsWork() async throws {
        let running = Latch()
        let task = try testRegistry(running: running).makeTask(for: request("async-sleep"))
        task.cancel()
        await startOnItsOwnThread(task)
        #expect(task.startedAt == nil)
        #expect(!running.wait(timeout: 0))
        #expect(try rowsInMain() == 0)
    }

    @Test func taskWithoutAsyncRunOverrideFailsWithoutRetry() async throws {
        let task = AsyncJobTask(request: try request("anything"))
        await startOnItsOwnThread(task)
        let error = try #require(task.result?.error as? JobError)
        #expect(error.code == .jobFailed)
        #expect(!error.isRetryable)
        #expect(error.description.hasPrefix("job failed: AsyncJobTask does not override run(in:) async (job file "))
    }

    // MARK: - In the daemon

    @Test func timeLimitCancelsAnAwaitingJobAndTheDaemonGoesOn() async throws {
        let sawCancellation = Latch()
        let harness = try DaemonHarness(registry: testRegistry(sawCancellation: sawCancellation))
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let sleeper = try harness.enqueue(["kind": "async-sleep", "timeout": 0.2, "maxAttempts": 1])
        let report = try await events.failed(sleeper.name)
        #expect(report.reason.contains("timed out after 0.2 s and was cancelled"), "\(report.reason)")
        #expect(sawCancellation.wait(timeout: 0))
        let next = try harness.enqueue(["kind": "async-insert-rows", "count": 3])
        try await events.finished(next.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(next.name)
        try await harness.stop(run)
        // The sleeper's row was rolled back.
        #expect(try harness.rowsOnDiskAfterStop() == 3)
    }

    /// More jobs than the pool has threads, each awaiting all the others: they can only all
    /// finish if none holds a thread of the pool while it waits.
    @Test func awaitingJobsHoldNoThreadOfThePool() async throws {
        let jobs = ProcessInfo.processInfo.activeProcessorCount + 4
        let harness = try DaemonHarness(registry: testRegistry(rendezvous: Rendezvous(expected: jobs))) {
            $0.maxConcurrentJobs = jobs
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (0..<jobs).map { _ in try harness.enqueue(["kind": "async-rendezvous"]) }
        for entry in entries {
            try await events.finished(entry.name)
        }
        _ = try await harness.daemon.flush()
        try await harness.stop(run)
        #expect(try harness.rowsOnDiskAfterStop() == jobs)
    }
}

/// Starts `task` on a thread of its own, as its queue would, and waits for it there: never on a
/// thread of the pool (see AsyncJobTask).
func startOnItsOwnThread(_ task: JobTask) async {
    await withCheckedContinuation { continuation in
        Thread {
            task.start()
            continuation.resume()
        }.start()
    }
}
