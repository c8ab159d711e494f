import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import Testing

/// Two `import-coredata` jobs of the corpus store, run at the same time by the real daemon
/// (in-process): both are acknowledged, and every entry is on disk once. The imports' first
/// attempts wait for each other before they read (`StartTogetherTask`), so that they overlap
/// however busy the machine is: a premise left to the scheduler failed CI once.
@Suite(.serialized) struct ConcurrentJournalImportTests {
    @Test func twoImportsOfOneStoreAtOnceLeaveEachEntryOnce() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("surfjournal-concurrent-\(UUID().uuidString)")
        let input = root.appendingPathComponent("input")
        let output = root.appendingPathComponent("output")
        for directory in [input, output] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = corpusDirectory.appendingPathComponent("surfjournal/SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                at: URL(fileURLWithPath: corpus.path + suffix), to: input.appendingPathComponent("SurfJournalModel.sqlite" + suffix))
        }

        var configuration = DaemonConfiguration(
            storeURL: root.appendingPathComponent("store.sqlite"), spoolURL: root.appendingPathComponent("spool"),
            inputDirectory: input, outputDirectory: output)
        configuration.maxConcurrentJobs = 2
        configuration.flushInterval = .milliseconds(50)
        configuration.rescanInterval = .milliseconds(20)
        configuration.spoolDurability = .none
        configuration.logLevel = .critical
        // Each conflict means the other job saved entries first, so retries end; allow plenty.
        configuration.retry = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100))
        let bothStarted = StartBarrier(parties: 2)
        var registry = JobRegistry()
        registry.register(ImportCoreDataTask.kind, parameters: ImportCoreDataTask.Parameters.self) { request, parameters in
            try StartTogetherTask(
                ImportCoreDataTask(request: request, parameters: parameters), request: request, barrier: bothStarted,
                timeout: 60)
        }
        let daemon = JobDaemon(
            configuration: configuration, registry: registry, model: SurfJournalModel.model,
            logger: Logger(label: "test"))
        let spool = try SpoolDirectory(root: configuration.spoolURL, durability: .none)
        let ids = ["first", "second"]
        for id in ids {
            try spool.enqueue(JobFile(kind: "import-coredata", id: id, parameters: ["input": .string("SurfJournalModel.sqlite")]))
        }
        let events = daemon.events()
        let daemonRun = Task { try await daemon.run() }
        var acknowledged: [String: JobResultReport] = [:]
        var failed: [String: JobFailureReport] = [:]
        // The attempts under way: started, not yet finished, failed or given another attempt.
        var running: Set<String> = []
        var bothRunning = false
        var retryReasons: [String] = []
        for await event in events {
            switch event {
            case let .jobStarted(job):
                running.insert(job.id ?? "?")
                if running.count == 2 { bothRunning = true }
            case let .jobFinished(job): running.remove(job.id ?? "?")
            case let .retryScheduled(job, _, error):
                running.remove(job.id ?? "?")
                retryReasons.append(error)
            case let .jobFailed(job, report):
                running.remove(job.id ?? "?")
                failed[job.id ?? "?"] = report
            case let .jobAcknowledged(job, report): acknowledged[job.id ?? "?"] = report
            default: break
            }
            if acknowledged.count + failed.count == ids.count { daemon.requestShutdown() }
        }
        try await daemonRun.value

        #expect(failed.isEmpty, "\(failed)")
        #expect(Set(acknowledged.keys) == Set(ids))
        #expect(bothRunning, "the two jobs ran at the same time")
        for reason in retryReasons {
            #expect(reason.contains("SurfJournalModel.sqlite") && reason.contains("saved by another job"), "\(reason)")
        }
        let store = try SQLiteStore(url: configuration.storeURL, model: SurfJournalModel.model, logger: Logger(label: "check"))
        defer { try? store.close() }
        #expect(try store.rowCount(of: "JournalEntry") == 5_000)
        #expect(try store.integrityCheck() == "ok")
    }
}
