import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import Testing

/// Many imports of overlapping documents at once, in the real daemon: the catalogue, an RSS and
/// an SOS document of the corpus (stations in common, and each imported several times), and the
/// Core Data store twice. Each import's inserts of stations, observations and entries that
/// another job saved first are settled by its merge policy when the main context accepts the
/// save (`MergePolicy`, constraint conflicts), so no attempt is wasted, and every row is on disk
/// once: as many as importing each document once gives.
@Suite(.serialized) struct OverlappingImportsThroughTheDaemonTests {
    private static let buoyDocuments = [
        "ndbc-activestations-2025-06-13.xml", "ndbc-rss-42002-2022-02-27.xml", "pyoos-ndbc-sos-winds-41012.xml",
    ]

    /// The rows of each document imported once, one after the other.
    private func rowsOfEachDocumentOnce() throws -> (stations: Int, observations: Int) {
        let fixture = try JournalFixture()
        for document in Self.buoyDocuments {
            try fixture.copyCorpus("ndbc/\(document)")
            _ = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "\#(document)"}"#)
        }
        return (try fixture.container.rowCount(of: "BuoyStation"), try fixture.container.rowCount(of: "BuoyObservation"))
    }

    @Test func manyOverlappingImportsAtOnceWasteNoAttemptAndStoreEveryRowOnce() async throws {
        let expected = try rowsOfEachDocumentOnce()
        #expect(expected.stations > 1_000 && expected.observations > 20)

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("surfjournal-overlapping-\(UUID().uuidString)")
        let input = root.appendingPathComponent("input")
        let output = root.appendingPathComponent("output")
        for directory in [input, output] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        for document in Self.buoyDocuments {
            try FileManager.default.copyItem(
                at: corpusDirectory.appendingPathComponent("ndbc/\(document)"), to: input.appendingPathComponent(document))
        }
        let journal = corpusDirectory.appendingPathComponent("surfjournal/SurfJournalModel.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                at: URL(fileURLWithPath: journal.path + suffix), to: input.appendingPathComponent("SurfJournalModel.sqlite" + suffix))
        }

        // Each buoy document twice, the journal twice: every station and entry is claimed by two
        // jobs at once, at a cost the rest of a parallel test run can bear.
        var jobs: [JobFile] = []
        for round in 0..<2 {
            for (index, document) in Self.buoyDocuments.enumerated() {
                jobs.append(try JobFile(kind: "import-buoy", id: "buoy-\(index)-\(round)", parameters: ["input": .string(document)]))
            }
        }
        for round in 0..<2 {
            jobs.append(try JobFile(kind: "import-coredata", id: "journal-\(round)", parameters: ["input": .string("SurfJournalModel.sqlite")]))
        }

        var configuration = DaemonConfiguration(
            storeURL: root.appendingPathComponent("store.sqlite"), spoolURL: root.appendingPathComponent("spool"),
            inputDirectory: input, outputDirectory: output)
        configuration.maxConcurrentJobs = jobs.count
        configuration.flushInterval = .milliseconds(200)
        configuration.rescanInterval = .milliseconds(20)
        configuration.spoolDurability = .none
        configuration.logLevel = .critical
        // Room for the retries that the test says never come: one would not show as a failure.
        configuration.retry = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100))
        // Every job's first attempt waits for all of them before it reads, so that they overlap
        // however busy the machine is.
        let allStarted = StartBarrier(parties: jobs.count)
        var registry = JobRegistry()
        registry.register(ImportBuoyTask.kind, parameters: ImportBuoyTask.Parameters.self) { request, parameters in
            try StartTogetherTask(ImportBuoyTask(request: request, parameters: parameters), request: request, barrier: allStarted, timeout: 120)
        }
        registry.register(ImportCoreDataTask.kind, parameters: ImportCoreDataTask.Parameters.self) { request, parameters in
            try StartTogetherTask(ImportCoreDataTask(request: request, parameters: parameters), request: request, barrier: allStarted, timeout: 120)
        }
        let daemon = JobDaemon(
            configuration: configuration, registry: registry, model: SurfJournalModel.model, logger: Logger(label: "test"))
        let spool = try SpoolDirectory(root: configuration.spoolURL, durability: .none)
        for job in jobs { try spool.enqueue(job) }
        let events = daemon.events()
        let daemonRun = Task { try await daemon.run() }
        var acknowledged: Set<String> = []
        var failed: [String: JobFailureReport] = [:]
        var retries: [String] = []
        for await event in events {
            switch event {
            case let .retryScheduled(job, _, error): retries.append("\(job.id ?? "?"): \(error)")
            case let .jobFailed(job, report): failed[job.id ?? "?"] = report
            case let .jobAcknowledged(job, _): acknowledged.insert(job.id ?? "?")
            default: break
            }
            if acknowledged.count + failed.count == jobs.count { daemon.requestShutdown() }
        }
        try await daemonRun.value

        #expect(retries.isEmpty, "no attempt wasted: \(retries)")
        #expect(failed.isEmpty, "\(failed)")
        #expect(acknowledged == Set(jobs.compactMap(\.id)))
        let store = try SQLiteStore(url: configuration.storeURL, model: SurfJournalModel.model, logger: Logger(label: "check"))
        defer { try? store.close() }
        #expect(try store.rowCount(of: "BuoyStation") == expected.stations)
        #expect(try store.rowCount(of: "BuoyObservation") == expected.observations)
        #expect(try store.rowCount(of: "JournalEntry") == 5_000)
        #expect(try store.integrityCheck() == "ok")
    }
}
