import Foundation
import Testing

@testable import LineupJobs

/// The window a daemon claims within when none is configured: the jobs running, plus what it
/// starts in two claim round trips, twice over, between the least window and sixteen times that.
struct ClaimWindowTests {
    let start = ContinuousClock.now

    /// Claims `jobs` spread evenly over `duration` from `from`, the way a runner notes them.
    func claim(_ jobs: Int, over duration: Duration, from: ContinuousClock.Instant, into window: inout ClaimWindow) {
        for job in 0..<jobs {
            window.noteClaimed(at: from + duration * (Double(job) / Double(jobs)))
        }
    }

    @Test("jobs of a second keep the least window, at any round trip")
    func slowJobsKeepTheLeastWindow() {
        var window = ClaimWindow(range: 8...128, concurrency: 2)
        claim(20, over: .seconds(10), from: start, into: &window)
        let now = start + .seconds(10)
        #expect(window.size(roundTrip: .milliseconds(2), at: now) == 8)
        #expect(window.size(roundTrip: .milliseconds(50), at: now) == 8)
    }

    @Test("jobs shorter than a round trip widen the window until the jobs in hand outlast two")
    func fastJobsWidenTheWindow() {
        var window = ClaimWindow(range: 8...128, concurrency: 2)
        // 5,000 jobs a second, with claims of 2 ms: 10 jobs start during a round trip, so the
        // window holds 2 running + 2 × 10, twice over.
        claim(1_000, over: .milliseconds(200), from: start, into: &window)
        let now = start + .milliseconds(200)
        #expect(abs(window.jobsPerSecond - 5_000) < 100)
        let size = window.size(roundTrip: .milliseconds(2), at: now)
        #expect((42...46).contains(size), "window \(size)")
        // A slower server widens it, up to sixteen times the least.
        let slower = window.size(roundTrip: .milliseconds(5), at: now)
        #expect((103...107).contains(slower), "window \(slower)")
        #expect(window.size(roundTrip: .milliseconds(50), at: now) == 128)
    }

    @Test("after a pause, the rate of the last burst does not size the next claim")
    func aPauseForgetsTheBurst() {
        var window = ClaimWindow(range: 8...128, concurrency: 2)
        claim(1_000, over: .milliseconds(200), from: start, into: &window)
        #expect(window.size(roundTrip: .milliseconds(10), at: start + .milliseconds(200)) == 128)
        // Ten seconds without a claim: the sample under way shows at most a job in ten seconds.
        #expect(window.size(roundTrip: .milliseconds(10), at: start + .seconds(10)) == 8)
    }

    @Test("a spool's claim takes no round trip: its window is the least")
    func noRoundTripNoWidening() {
        var window = ClaimWindow(range: 8...128, concurrency: 2)
        claim(1_000, over: .milliseconds(200), from: start, into: &window)
        #expect(window.size(roundTrip: nil, at: start + .milliseconds(200)) == 8)
    }

    @Test("a configured claimWindow is the window, whatever the jobs")
    func aConfiguredWindowIsFixed() {
        var configuration = DaemonConfiguration(
            storeURL: URL(filePath: "/tmp/store.sqlite"), spoolURL: URL(filePath: "/tmp/spool"),
            inputDirectory: URL(filePath: "/tmp/in"), outputDirectory: URL(filePath: "/tmp/out"))
        configuration.maxConcurrentJobs = 2
        #expect(configuration.claimWindowRange == 8...128)
        configuration.claimWindow = 20
        #expect(configuration.claimWindowRange == 20...20)
        var window = ClaimWindow(configuration)
        claim(1_000, over: .milliseconds(200), from: start, into: &window)
        #expect(window.size(roundTrip: .milliseconds(50), at: start + .milliseconds(200)) == 20)
    }
}
