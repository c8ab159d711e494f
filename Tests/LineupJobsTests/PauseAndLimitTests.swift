import Foundation
import LineupJobs
import LineupSpool
import LineupTesting
import Testing

/// Pauses (`JobDaemon.pause`, the spool's `paused.json`) and limits (`DaemonConfiguration.limits`)
/// on a spool, with one daemon: its own counts are the limits'.
@Suite(.daemonTestTimeLimit)
struct PauseAndLimitTests {
    @Test func aPausedKindStaysInNewAcrossARestartWhileOthersRunAndRunsOnceResumed() async throws {
        let first = try DaemonHarness()
        defer { first.removeFiles() }
        // Paused before the daemon starts, as `lineup pause` does with no daemon running.
        try first.spool.pause(.kind("insert-rows"))
        var (events, run) = try await first.start()
        let paused = try first.enqueue(["kind": "insert-rows", "count": 1])
        let other = try first.enqueue(["kind": "upsert-keyed", "key": "a", "value": 1])
        try await events.finished(other.name)
        #expect(try first.spool.counts().queued == 1, "the paused kind's job stays in new/")
        #expect(await first.daemon.status()?.paused == [.kind("insert-rows")])
        try await first.stop(run)

        let second = try DaemonHarness(root: first.root)
        defer { second.removeFiles() }
        (events, run) = try await second.start()
        let later = try second.enqueue(["kind": "upsert-keyed", "key": "b", "value": 2])
        try await events.finished(later.name)
        #expect(try second.spool.counts().queued == 1, "still paused after a restart")
        #expect(try await second.daemon.resume(.kind("insert-rows")) == true)
        try await events.finished(paused.name)
        #expect(await second.daemon.status()?.paused == nil)
        try await second.stop(run)
    }

    @Test func aQueuePausedByAnotherProcessIsObeyedWithinARescanAndResumedTheSameWay() async throws {
        let harness = try DaemonHarness { configuration in
            configuration.queues = ["imports": .init(kinds: ["insert-rows"], concurrency: 1)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        // Another process (`lineup pause --queue imports`): the file only.
        let operatorView = try SpoolDirectory(root: harness.configuration.spoolURL)
        try operatorView.pause(.queue("imports"))
        try await Task.sleep(for: harness.configuration.rescanInterval * 10)
        let held = try harness.enqueue(["kind": "insert-rows", "count": 1])
        let other = try harness.enqueue(["kind": "upsert-keyed", "key": "a", "value": 1])
        try await events.finished(other.name)
        try await Task.sleep(for: harness.configuration.rescanInterval * 5)
        #expect(try harness.spool.counts().queued == 1)
        #expect(await harness.daemon.status()?.paused == [.queue("imports")])
        try operatorView.resume(.queue("imports"))
        try await events.finished(held.name)
        try await harness.stop(run)
    }

    @Test func aConcurrencyLimitKeepsTheRestInNewAndNeverRunsMoreAtOnce() async throws {
        let probe = ConcurrencyProbe()
        let harness = try DaemonHarness(registry: probe.registering(in: testRegistry(latch: Latch(), running: Latch()))) { configuration in
            configuration.maxConcurrentJobs = 4
            configuration.limits = [.kind("probe"): JobLimit(maxRunning: 2)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (0..<8).map { _ in try harness.enqueue(["kind": "probe"]) }
        for entry in entries { try await events.finished(entry.name) }
        #expect(probe.runs == 8)
        #expect(probe.most == 2, "four slots, but a limit of two")
        let limit = try #require(await harness.daemon.status()?.limits?.first)
        #expect(limit.scope == .kind("probe") && limit.maxRunning == 2 && limit.running == 0 && !limit.holdingBack)
        try await harness.stop(run)
    }

    @Test func aLimitHoldingJobsBackSaysSoInTheStatus() async throws {
        let latch = Latch()
        let harness = try DaemonHarness(latch: latch) { configuration in
            configuration.limits = [.kind("slow"): JobLimit(maxRunning: 1)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.enqueue(["kind": "slow"])
        let second = try harness.enqueue(["kind": "slow"])
        try await events.started(first.name)
        try await Task.sleep(for: .milliseconds(200))
        #expect(try harness.spool.counts().queued == 1, "the second stays in new/, unclaimed")
        let limit = try #require(await harness.daemon.status()?.limits?.first)
        #expect(limit.running == 1 && limit.holdingBack)
        latch.open()
        try await events.finished(second.name)
        try await harness.stop(run)
    }

    @Test func aRateLimitHoldsJobsBackUntilItsPeriodHasPassed() async throws {
        let clock = TestClock()
        let harness = try DaemonHarness(hooks: .harness(on: clock)) { configuration in
            configuration.limits = [.kind("insert-rows"): JobLimit(rate: .init(jobs: 2, per: .seconds(60)))]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (1...3).map { try harness.enqueue(["kind": "insert-rows", "count": .integer($0)]) }
        try await events.finished(entries[0].name)
        try await events.finished(entries[1].name)
        try await Task.sleep(for: .milliseconds(200))
        #expect(try harness.spool.counts().queued == 1)
        let limit = try #require(await harness.daemon.status()?.limits?.first)
        #expect(limit.claimedInPeriod == 2 && limit.rate == 2 && limit.period == 60 && limit.holdingBack)
        clock.advance(by: .seconds(30))
        try await Task.sleep(for: .milliseconds(200))
        #expect(try harness.spool.counts().queued == 1, "half a period on, still held")
        clock.advance(by: .seconds(31))
        try await events.finished(entries[2].name)
        try await harness.stop(run)
    }
}
