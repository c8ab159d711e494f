import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupTestSupport
import Testing

/// A notification of n new jobs wakes n of the D daemons that listen (issue 35: the herd), each
/// its fair share, and a job no woken daemon took waits one poll at most.
@Suite struct WakeShareTests {
    @Test("of D daemons that counted alike, a notification of n jobs wakes min(n, D), whatever its start")
    func aNotificationWakesAsManyDaemonsAsItHasJobs() {
        for daemons in 1...12 {
            for jobs in 0...14 {
                for start in [0, 1, 5, 999_999, 123_457] {
                    let payload = WakeShare.payload(jobs: jobs, start: start)
                    let woken = (0..<daemons).filter { WakeShare.wakes(WakeShare(rank: $0, daemons: daemons), for: payload) }
                    #expect(woken.count == min(jobs, daemons), "\(daemons) daemons, \(jobs) jobs, start \(start): \(woken)")
                }
            }
        }
    }

    @Test("over the starts, each daemon is woken as often as any other")
    func eachDaemonGetsItsShare() {
        let daemons = 7
        var wakes = [Int](repeating: 0, count: daemons)
        for start in 0..<(daemons * 10) {
            for rank in 0..<daemons where WakeShare.wakes(WakeShare(rank: rank, daemons: daemons), for: WakeShare.payload(jobs: 2, start: start)) {
                wakes[rank] += 1
            }
        }
        #expect(Set(wakes) == [20], "\(wakes)")
    }

    @Test("a notification without a count, or a daemon that has not counted, wakes every daemon")
    func whatCannotBeSharedWakesEveryone() {
        let share = WakeShare(rank: 3, daemons: 5)
        for payload in ["", "x", "1", "1 2 3", "-1 4", "1 -4"] {
            #expect(WakeShare.wakes(share, for: payload), "\(payload)")
        }
        #expect(WakeShare.wakes(nil, for: WakeShare.payload(jobs: 1, start: 0)))
        #expect(WakeShare.wakes(WakeShare(rank: 5, daemons: 5), for: WakeShare.payload(jobs: 1, start: 0)), "a rank past the count")
    }
}

/// The same against a server: single jobs enqueued one by one to idle daemons are each claimed
/// by a daemon its notification woke, spread over the daemons, and none waits past a poll.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct WakeShareDatabaseTests {
    @Test("a trickle of single jobs to four idle daemons: each claimed within a poll, by more than one daemon")
    func aTrickleIsSharedAndNeverWaitsPastAPoll() async throws {
        let database = try DatabaseJobsTests.Database()
        let poll = Duration.seconds(3)
        let harnesses = try (0..<4).map { _ in
            try DaemonHarness { configuration in
                configuration.databaseURL = database.url
                configuration.lease = .seconds(600)
                configuration.rescanInterval = poll
                configuration.flushesWhenIdle = true
            }
        }
        defer { harnesses.forEach { $0.removeFiles() } }
        var runs: [Task<Void, any Error>] = []
        for harness in harnesses {
            runs.append(try await harness.start().1)
        }
        // Each daemon counts the others at its heartbeats (a tick, every poll): wait until every
        // one has renewed its lease once, past the one it registered with.
        let deadline = ContinuousClock.now + .seconds(30)
        while try database.psql("SELECT count(*) FROM lineup_daemons WHERE lease_expires_at > started_at + interval '600 s'") != "4",
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(100))

        let jobCount = 16
        let jobs = try database.jobs()
        for number in 1...jobCount {
            try jobs.enqueue([
                JobDatabase.Submission(name: "single-\(number)", contents: try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded())
            ])
            try await Task.sleep(for: .milliseconds(150))
        }
        jobs.close()
        try await database.waitUntil(.done, count: jobCount)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: jobCount, failed: 0))
        let waits = try database.psql("SELECT extract(epoch FROM claimed_at - enqueued_at) FROM lineup_jobs ORDER BY id")
            .split(separator: "\n").compactMap { Double($0) }
        #expect(waits.count == jobCount)
        // A poll, and a second for the machine to claim (more under the thread sanitizer).
        let slack = Double(ThreadSanitizer.slowdown)
        #expect(waits.allSatisfy { $0 < DaemonConfiguration.seconds(poll) + slack }, "seconds from enqueue to claim: \(waits)")
        let daemonsThatClaimed = try database.psql("SELECT count(DISTINCT claimed_by) FROM lineup_jobs")
        #expect((Int(daemonsThatClaimed) ?? 0) >= 2, "the jobs were claimed by \(daemonsThatClaimed) daemon(s)")
        for (harness, run) in zip(harnesses, runs) {
            try await harness.stop(run)
        }
    }
}
