import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

/// A task run on its own (as `lineup run` does), without a queue or a daemon.
@Suite final class JobTaskTests {
    let directory: URL
    let container: PersistentContainer

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "lineup-task-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try PersistentContainer(
            url: directory.appending(path: "store.sqlite"), model: testModel, logger: Logger(label: "test"))
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func request(_ kind: String, _ parameters: [String: JSONValue] = [:], attempt: Int = 1) throws -> JobRequest {
        JobRequest(
            jobID: "job-1", name: "20260101T000000.000000Z-1-abc-1", file: try JobFile(kind: kind, parameters: parameters),
            jobFilePath: "/spool/active/job-1.job.json", attempt: attempt,
            paths: PathPolicy(inputDirectory: directory, outputDirectory: directory), container: container,
            logger: Logger(label: "test"))
    }

    func mainHasChanges() -> Bool {
        container.mainContext.performAndWait { container.mainContext.hasChanges }
    }

    func rowsInMain() throws -> Int {
        try container.mainContext.performAndWait { try container.mainContext.count(for: FetchRequest<TestRow>()) }
    }

    @Test func successSavesIntoTheMainContextButNotToDisk() throws {
        let task = try testRegistry().makeTask(for: request("insert-rows", ["count": 3]))
        task.start()
        let outcome = try #require(task.result?.outcome)
        #expect(outcome.counts == ["rows": 3])
        #expect(outcome.summary == "inserted 3 rows")
        #expect(try rowsInMain() == 3)
        #expect(try container.rowCount(of: "TestRow") == 0)
        #expect(task.progress.snapshot == JobProgress.Snapshot(completedUnitCount: 3, totalUnitCount: 3))
        try container.flush()
        #expect(try container.rowCount(of: "TestRow") == 3)
    }

    @Test func failedTaskLeavesNothingInTheMainContext() throws {
        let task = try testRegistry().makeTask(for: request("fail-n-times", ["failures": 1]))
        task.start()
        let error = try #require(task.result?.error as? FailNTimesTask.Failure)
        #expect(error.attempt == 1)
        #expect(!mainHasChanges())
        #expect(try rowsInMain() == 0)
    }

    @Test func taskCancelledBeforeItStartsDoesNothing() throws {
        let task = try testRegistry().makeTask(for: request("insert-rows", ["count": 2]))
        task.cancel()
        task.start()
        #expect(task.startedAt == nil)
        #expect(!mainHasChanges())
        #expect(task.isFinished)
    }

    @Test func taskCancelledWhileRunningDiscardsItsContext() throws {
        let running = Latch()
        let task = try testRegistry(latch: Latch(), running: running).makeTask(for: request("slow"))
        // A thread of its own, as a queue would give it (without depending on Dispatch's pool).
        Thread { task.start() }.start()
        // The slow task opens `running` once it has inserted its row.
        #expect(running.wait(timeout: 60))
        task.cancel()
        task.waitUntilFinished()
        guard case .cancelled = try #require(task.result) else {
            Issue.record("expected a cancelled result, got \(String(describing: task.result))")
            return
        }
        #expect(!mainHasChanges())
        #expect(try rowsInMain() == 0)
    }

    @Test func taskWithoutRunOverrideFailsWithoutRetry() throws {
        let task = JobTask(request: try request("anything"))
        task.start()
        let error = try #require(task.result?.error as? JobError)
        #expect(error.code == .jobFailed)
        #expect(!error.isRetryable)
        #expect(error.description == "job failed: JobTask does not override run(in:) (job file /spool/active/job-1.job.json)")
    }
}
