import Foundation
import LineupJobs
import LineupLocking
import LineupSpool
import LineupStore
import LineupTestSupport
import Testing

/// Synchronous jobs block their threads. Neither the process's Swift tasks (the daemon's loops,
/// its timers, async jobs, an embedding service's handlers) nor the next jobs may wait for those
/// threads. On Linux libdispatch's global pools grow by about a thread a second once their
/// threads block: each attempt runs on the runner's own threads, made as they are needed
/// (see `AttemptThreads`).
@Suite(.daemonTestTimeLimit) struct BlockingJobsTests {
    @Test func thirtyTwoBlockedJobsStartAtOnceAndDoNotHoldBackTheProcesssSwiftTasks() async throws {
        let release = Latch()
        let blocked = Locked(0)
        var registry = testRegistry()
        registry.register("block") { request in BlockedTask(request: request, blocked: blocked, release: release) }
        let harness = try DaemonHarness(registry: registry) { configuration in
            configuration.maxConcurrentJobs = 32
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let enqueued = ContinuousClock.now
        let entries = try (0..<32).map { _ in try harness.enqueue(["kind": "block"]) }

        // While the jobs start and block, the test's short sleeps end in time. Were the jobs in
        // the Swift tasks' pool, one would end only once that pool had grown by a thread for each
        // job, about half a minute; the bound leaves room for a machine loaded by other tests,
        // twice as much under the thread sanitizer (still short of that half minute). The wait
        // ends at three times the bound asserted below, past which the test has failed anyway:
        // the jobs must then still be released and stopped within the time limit, or the daemon
        // outlives the test.
        let sleepBound = Duration.seconds(ThreadSanitizer.isActive ? 20 : 10)
        var longestSleep = Duration.zero
        let deadline = ContinuousClock.now + sleepBound * 3
        while blocked.withLock({ $0 }) < 32, ContinuousClock.now < deadline {
            let start = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(10))
            longestSleep = max(longestSleep, ContinuousClock.now - start)
        }
        #expect(blocked.withLock { $0 } == 32, "every job blocked its thread")
        // In a global pool the jobs beyond the first few would start about a second apart:
        // half a minute for 32.
        let allStarted = ContinuousClock.now - enqueued
        #expect(allStarted < .seconds(15), "the 32 jobs took \(allStarted) to start")
        #expect(longestSleep < sleepBound, "a 10 ms sleep took \(longestSleep)")
        #expect(await harness.daemon.status() != nil, "the daemon answers")
        release.open()
        for entry in entries { try await events.finished(entry.name) }
        try await harness.stop(run)
    }
}

/// A job that counts itself in `blocked`, then blocks its thread until `release` opens.
private final class BlockedTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: as every JobTask (an Operation); both properties are Sendable lets.
    let blocked: Locked<Int>
    let release: Latch

    init(request: JobRequest, blocked: Locked<Int>, release: Latch) {
        self.blocked = blocked
        self.release = release
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        blocked.withLock { $0 += 1 }
        _ = release.wait(timeout: 60)
        return JobOutcome(summary: "released")
    }
}
