import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// Batches: jobs enqueued together with a callback that runs once all of them have settled, on
/// success only or always, and reads what they did (`JobRequest.dependencyReports()`).
@Suite(.daemonTestTimeLimit) struct BatchTests {
    /// The tests' kinds and a batch's callback, `read-dependencies`.
    static func registry() -> JobRegistry {
        var registry = testRegistry()
        registry.register("read-dependencies") { request in
            ReadDependenciesTask(request: request)
        }
        return registry
    }

    /// Three imports, one of which fails for good; the callback runs always and reads two done
    /// reports (with what they inserted) and one failure.
    static func enqueueImports(
        with client: JobClient, runsCallback: BatchCallbackCondition, id: String
    ) throws -> BatchReceipt {
        try client.enqueueBatch(
            [
                try JobFile(kind: "insert-rows", parameters: ["count": 2]),
                try JobFile(kind: "fail-n-times", maxAttempts: 1, parameters: ["failures": 1, "retryable": false]),
                try JobFile(kind: "insert-rows", parameters: ["count": 3]),
            ],
            callback: try JobFile(kind: "read-dependencies"), runsCallback: runsCallback, id: id)
    }

    @Test func aCallbackThatRunsAlwaysReadsTheReportsOfEveryJobOfTheBatch() async throws {
        let harness = try DaemonHarness(registry: Self.registry()) { $0.maxConcurrentJobs = 4 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let batch = try Self.enqueueImports(with: JobClient(spool: harness.spool), runsCallback: .whenAllSettled, id: "nightly")
        #expect(batch.batchID == "nightly" && batch.callbackID == "nightly")
        #expect(batch.jobIDs == ["nightly.1", "nightly.2", "nightly.3"])
        #expect(batch.enqueued.jobs == 4, "one bulk file: the callback never exists without its jobs")

        let callback = try await events.next {
            if case let .jobFinished(info) = $0 { info.id == "nightly" } else { false }
        }
        // Every job of the batch had settled before the callback started.
        let callbackStarted = try #require(
            events.seen.firstIndex { if case let .jobStarted(info) = $0 { info.id == "nightly" } else { false } })
        let settledBefore = events.seen[..<callbackStarted].compactMap { event -> String? in
            switch event {
            case let .jobFailed(info, _): info.id
            case let .jobFinished(info): info.id
            default: nil
            }
        }
        #expect(Set(settledBefore).isSuperset(of: batch.jobIDs))
        _ = try await harness.daemon.flush()
        let report = try await events.acknowledged(try #require(callbackName(callback)))
        #expect(report.details["counts"] == .object(["done": 2, "failed": 1, "rows": 5]), "\(report.details)")
        #expect(report.details["summary"]?.stringValue?.contains("planned failure of attempt 1") == true)
        try await harness.stop(run)
    }

    @Test func aCallbackOnSuccessOnlyFailsNamingTheJobThatFailed() async throws {
        let harness = try DaemonHarness(registry: Self.registry()) { $0.maxConcurrentJobs = 4 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        _ = try Self.enqueueImports(with: JobClient(spool: harness.spool), runsCallback: .whenAllDone, id: "strict")
        let failure = try await events.next {
            if case let .jobFailed(info, _) = $0 { info.id == "strict" } else { false }
        }
        guard case let .jobFailed(_, report) = failure else { preconditionFailure() }
        #expect(report.reason.contains("dependency failed: job strict.2 in `after` failed"), "\(report.reason)")
        try await harness.stop(run)
    }

    /// After a restart, the callback reads reports from where they are filed: done lines in the
    /// bulk's ledger, failed ones in `failed/`.
    @Test func reportsFiledByAnEarlierRunAreRead() async throws {
        let first = try DaemonHarness(registry: Self.registry()) { $0.maxConcurrentJobs = 4 }
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        let client = JobClient(spool: first.spool)
        let jobs = try client.enqueue(contentsOf: [
            try JobFile(kind: "insert-rows", id: "earlier.1", parameters: ["count": 4]),
            try JobFile(kind: "fail-n-times", id: "earlier.2", maxAttempts: 1, parameters: ["failures": 1, "retryable": false]),
        ])
        #expect(jobs.jobs == 2)
        try await Self.waitUntilSettled(["earlier.1", "earlier.2"], in: &events)
        _ = try await first.daemon.flush()
        try await first.stop(run)

        let second = try DaemonHarness(root: first.root, registry: Self.registry()) { $0.maxConcurrentJobs = 4 }
        defer { second.removeFiles() }
        var (laterEvents, laterRun) = try await second.start()
        let callback = try second.spool.enqueue(
            try JobFile(kind: "read-dependencies", after: ["earlier.1", "earlier.2"], afterSettled: true))
        try await laterEvents.finished(callback.name)
        _ = try await second.daemon.flush()
        let report = try await laterEvents.acknowledged(callback.name)
        #expect(report.details["counts"] == .object(["done": 1, "failed": 1, "rows": 4]), "\(report.details)")
        try await second.stop(laterRun)
    }

    @Test func aBatchIsRefusedBeforeAnythingIsWritten() throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-batch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let spool = try SpoolDirectory(root: root, durability: .none)
        let client = JobClient(spool: spool)
        #expect(throws: SpoolError.self) {
            try client.enqueueBatch([], callback: try JobFile(kind: "read-dependencies"))
        }
        #expect(throws: SpoolError.self) {
            try client.enqueueBatch(
                [try JobFile(kind: "insert-rows", id: "same"), try JobFile(kind: "insert-rows", id: "same")],
                callback: try JobFile(kind: "read-dependencies"))
        }
        #expect(try spool.counts() == JobCounts.zero)
        // A generated batch id; the callback keeps `after` entries of its own.
        let batch = try client.enqueueBatch(
            [try JobFile(kind: "insert-rows")], callback: try JobFile(kind: "read-dependencies", after: ["setup"]))
        #expect(batch.batchID.hasPrefix("batch-") && batch.jobIDs == [batch.batchID + ".1"])
        let lines = SpoolDirectory.jobLines(ofBulk: try Data(contentsOf: try #require(try spool.entries(.queued).first).url))
        let callback = try JobFile(data: try #require(lines.last).contents)
        #expect(callback.after == ["setup", batch.batchID + ".1"] && !callback.afterSettled)
    }

    @Test func afterSettledMustBeABoolean() throws {
        #expect(throws: SpoolError.self) { try JobFile(data: Data(#"{"kind":"x","afterSettled":"yes"}"#.utf8)) }
        #expect(try JobFile(data: Data(#"{"kind":"x","afterSettled":true}"#.utf8)).afterSettled)
    }

    /// Reads events until each job with one of `ids` has finished an attempt or failed for good,
    /// in whatever order they do.
    static func waitUntilSettled(_ ids: Set<String>, in events: inout EventLog) async throws {
        var unsettled = ids
        while !unsettled.isEmpty {
            let event = try await events.next { event in
                switch event {
                case let .jobFinished(info), let .jobFailed(info, _): unsettled.contains(info.id ?? "")
                default: false
                }
            }
            switch event {
            case let .jobFinished(info), let .jobFailed(info, _): unsettled.remove(info.id ?? "")
            default: break
            }
        }
    }

    private func callbackName(_ event: DaemonEvent) -> String? {
        if case let .jobFinished(info) = event { return info.name }
        return nil
    }
}

/// The same batch in a database: one transaction, and the callback reads the reports from the
/// jobs table.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseBatchTests {
    @Test func aCallbackReadsTheReportsFromTheTable() async throws {
        let database = try DatabaseJobsTests.Database()
        let harness = try DaemonHarness(registry: BatchTests.registry()) {
            $0.databaseURL = database.url
            $0.maxConcurrentJobs = 4
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let jobs = try database.jobs()
        defer { jobs.close() }
        let batch = try BatchTests.enqueueImports(with: JobClient(destination: jobs), runsCallback: .whenAllSettled, id: "nightly")
        #expect(batch.enqueued.jobs == 4)
        // The table shows a job done once its flush commits: the harness flushes only when told.
        try await BatchTests.waitUntilSettled(Set(batch.jobIDs), in: &events)
        _ = try await harness.daemon.flush()
        let callback = try await events.next {
            if case let .jobFinished(info) = $0 { info.id == "nightly" } else { false }
        }
        guard case let .jobFinished(info) = callback else { preconditionFailure() }
        _ = try await harness.daemon.flush()
        let report = try await events.acknowledged(info.name)
        #expect(report.details["counts"] == .object(["done": 2, "failed": 1, "rows": 5]), "\(report.details)")
        try await harness.stop(run)
    }
}
