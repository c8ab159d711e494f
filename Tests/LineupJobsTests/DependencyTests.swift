import Foundation
import LineupJobs
import LineupSpool
import LineupTesting
import Testing

/// `after`: a job starts only once the jobs it names are acknowledged (on disk, in `done/`).
@Suite(.daemonTestTimeLimit) struct DependencyTests {
    /// The index of the first event that matches.
    func index(in events: [DaemonEvent], _ matches: (DaemonEvent) -> Bool) throws -> Int {
        let found = events.firstIndex(where: matches)
        return try #require(found)
    }

    @Test func dependentStartsAfterItsDependencyIsOnDiskAndSeesItWithSQL() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let importJob = try harness.enqueue(["kind": "insert-rows", "count": 5, "id": "import"])
        let statistics = try harness.enqueue(["kind": "count-rows", "after": ["import"]])
        // No flush is asked for: a finished job with dependents is flushed at once.
        try await events.finished(statistics.name)
        let startedDependent = try index(in: events.seen) {
            if case let .jobStarted(info) = $0 { info.name == statistics.name } else { false }
        }
        let acknowledgedDependency = try index(in: events.seen) {
            if case let .jobAcknowledged(info, _) = $0 { info.name == importJob.name } else { false }
        }
        #expect(acknowledgedDependency < startedDependent)
        try await harness.daemon.flush()
        let report = try harness.resultReport(statistics)
        // SQL aggregates see saved data only: the dependency's rows were on disk.
        #expect(report.details["counts"] == ["onDisk": 5, "visible": 5])
        try await harness.stop(run)
    }

    @Test func dependentEnqueuedBeforeItsDependencyWaitsForIt() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let statistics = try harness.enqueue(["kind": "count-rows", "after": ["later"]])
        let waiting = try await events.next {
            if case let .jobWaitingForDependencies(info, ids) = $0 { info.name == statistics.name && ids == ["later"] } else { false }
        }
        guard case .jobWaitingForDependencies = waiting else { return }
        #expect(await harness.daemon.status()?.waitingForDependencies == 1)
        let importJob = try harness.enqueue(["kind": "insert-rows", "count": 2, "id": "later"])
        try await events.finished(statistics.name)
        try await harness.daemon.flush()
        #expect(try harness.resultReport(statistics).details["counts"] == ["onDisk": 2, "visible": 2])
        #expect(try harness.spool.entries(.done).map(\.name).sorted() == [statistics.name, importJob.name].sorted())
        try await harness.stop(run)
    }

    @Test func dependencyDoneInAnEarlierRunIsSatisfied() async throws {
        let first = try DaemonHarness()
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        let importJob = try first.enqueue(["kind": "insert-rows", "count": 3, "id": "import"])
        try await events.finished(importJob.name)
        try await first.stop(run)

        let second = try DaemonHarness(root: first.root)
        defer { second.removeFiles() }
        (events, run) = try await second.start()
        let statistics = try second.enqueue(["kind": "count-rows", "after": ["import"]])
        try await events.finished(statistics.name)
        try await second.daemon.flush()
        #expect(try second.resultReport(statistics).details["counts"] == ["onDisk": 3, "visible": 3])
        try await second.stop(run)
    }

    @Test func dependentOfAFailedJobFails() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let importJob = try harness.enqueue(["kind": "fail-n-times", "failures": 9, "retryable": false, "id": "import"])
        let statistics = try harness.enqueue(["kind": "count-rows", "after": ["import"], "id": "stats"])
        _ = try await events.failed(importJob.name)
        let report = try await events.failed(statistics.name)
        #expect(!report.retryable)
        #expect(report.reason.hasPrefix("dependency failed: job import in `after` failed: ") && report.reason.hasSuffix("(job file \(statistics.fileName))"))
        // A dependent claimed after the failure fails the same way.
        let late = try harness.enqueue(["kind": "count-rows", "after": ["import"]])
        let lateReport = try await events.failed(late.name)
        #expect(lateReport.reason.contains("dependency failed: job import in `after` failed: "))
        try await harness.stop(run)
    }

    @Test func waitingDependentFailsWhenTheJobItWaitsForTurnsOutInvalid() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let statistics = try harness.enqueue(["kind": "count-rows", "after": ["import"]])
        try await events.next {
            if case let .jobWaitingForDependencies(info, _) = $0 { info.name == statistics.name } else { false }
        }
        let invalid = try harness.enqueue(["kind": "insert-rows", "id": "import"])
        let invalidReport = try await events.failed(invalid.name)
        #expect(invalidReport.reason.contains("invalid parameters"))
        let report = try await events.failed(statistics.name)
        #expect(report.reason.contains("dependency failed: job import in `after` failed: "))
        try await harness.stop(run)
    }

    @Test func unknownDependencyFailsAfterTheWaitTimeout() async throws {
        let harness = try DaemonHarness { $0.dependencyWaitTimeout = .milliseconds(50) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "count-rows", "after": ["ghost"]])
        let report = try await events.failed(entry.name)
        #expect(
            report.reason
                == "unknown dependency: no job with id ghost "
                + "(named in `after`) was queued, running, done or failed within 0.05 s (job file \(entry.fileName))")
        try await harness.stop(run)
    }

    @Test func cycleFailsInsteadOfWaitingForever() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let a = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "a", "after": ["b"]])
        let b = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "b", "after": ["a"]])
        let first = try await events.next { if case .jobFailed = $0 { true } else { false } }
        let second = try await events.next { if case .jobFailed = $0 { true } else { false } }
        guard case let .jobFailed(firstInfo, firstReport) = first, case let .jobFailed(secondInfo, secondReport) = second else {
            return
        }
        #expect(Set([firstInfo.name, secondInfo.name]) == Set([a.name, b.name]))
        #expect(firstReport.reason.contains("dependency cycle: "))
        #expect(secondReport.reason.contains("dependency failed: "))
        try await harness.stop(run)
    }
}

extension DependencyTests {
    /// A dependency that no job of this run settles, but that turns up settled in `done/` (moved
    /// there by an earlier run's recovery, say) while its dependent waits: when the wait for the
    /// unknown id is up, the dependent is judged again and runs, rather than waiting forever or
    /// failing for an id that is done.
    @Test func dependencyThatTurnsUpInDoneWhileItsDependentWaitsIsSatisfied() async throws {
        let earlier = try DaemonHarness()
        defer { earlier.removeFiles() }
        var (earlierEvents, earlierRun) = try await earlier.start()
        let importJob = try earlier.enqueue(["kind": "insert-rows", "count": 1, "id": "import"])
        try await earlierEvents.finished(importJob.name)
        try await earlier.stop(earlierRun)

        // The wait is up only when the test moves its clock, after the copy below: on the
        // system's clock, a loaded machine could end a wait of seconds before the copy lands.
        let clock = TestClock()
        let harness = try DaemonHarness(hooks: .harness(on: clock)) { $0.dependencyWaitTimeout = .seconds(60) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let statistics = try harness.enqueue(["kind": "count-rows", "after": ["import"]])
        try await events.next {
            if case let .jobWaitingForDependencies(info, _) = $0 { info.name == statistics.name } else { false }
        }
        for entry in try earlier.spool.entries(.done) {
            let destination = harness.spool.directory(.done).appending(path: entry.fileName)
            try FileManager.default.copyItem(at: entry.url, to: destination)
        }
        clock.advance(by: .seconds(61))
        try await events.finished(statistics.name)
        try await harness.daemon.flush()
        #expect(try harness.spool.entries(.done).map(\.name).contains(statistics.name))
        try await harness.stop(run)
    }
}
