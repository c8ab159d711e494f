import Foundation
import LineupJobs
public import LineupSpool
import LineupStore

extension JobTester {
    /// Runs `job` inline, as the daemon would run one attempt: its kind's factory makes the task,
    /// the task works in a private child context of the main context and saves into it; then
    /// the tester flushes the main context to disk. The spool is not involved.
    ///
    /// - Parameters:
    ///   - job: the job to run; without an `id`, it runs as `inline-<random>`.
    ///   - attempt: which attempt this is (a task that behaves differently on a retry).
    /// - Returns: the result, with the report a daemon would write; a job its factory refuses
    ///   (an unknown kind, bad parameters) comes back failed, with the daemon's error.
    public func run(_ job: JobFile, attempt: Int = 1) async throws -> InlineRun {
        let id = job.id ?? "inline-\(UUID().uuidString.prefix(8).lowercased())"
        let request = JobRequest(
            jobID: id, name: id, file: job, jobFilePath: "\(id).job.json", attempt: attempt,
            paths: daemon.configuration.pathPolicy, container: container, logger: logger)
        let task: JobTask
        do {
            task = try daemon.registry.makeTask(for: request)
        } catch {
            return InlineRun(result: .failed(error), report: nil)
        }
        await Self.startOnAThreadOfItsOwn(task)
        let report = task.resultReport(name: id, id: job.id, kind: job.kind, attempt: attempt, now: clock.now)
        if report != nil {
            try await flush()
        }
        return InlineRun(result: task.result ?? .cancelled, report: report)
    }

    /// Runs a job of `kind` with `parameters` inline (see ``run(_:attempt:)``).
    public func run(_ kind: String, _ parameters: some Encodable, options: JobOptions = JobOptions()) async throws -> InlineRun {
        try await run(JobFile(kind: kind, parameters: parameters, options: options))
    }

    /// Flushes the main context to disk as the daemon's flush does; the jobs that the flushed
    /// changes enqueued (`context.enqueue(_:)`) are in the spool when it returns.
    public func flush() async throws {
        _ = try await daemon.flush()
    }

    /// Starts `task` on a thread of its own, as an OperationQueue would, and returns once it has
    /// finished: never on a thread of the cooperative pool, which an ``AsyncJobTask``'s wait for
    /// its own work would block.
    static func startOnAThreadOfItsOwn(_ task: JobTask) async {
        await withCheckedContinuation { continuation in
            Thread {
                task.start()
                continuation.resume()
            }.start()
        }
    }
}
