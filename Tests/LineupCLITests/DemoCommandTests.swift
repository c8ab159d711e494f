import Foundation
import Testing

extension DaemonTests {
    /// The README's first command, as a user runs it from the top of the repository.
    @Suite("lineup demo")
    struct DemoCommandTests {
        @Test("lineup demo runs every example job, a scheduled job when it is due, a retried job and two fetches of its own feed, and reports them done")
        func demoRunsEveryJob() async throws {
            try await withSandbox { sandbox in
                let package = BuoyFixtures.samplesDirectory.deletingLastPathComponent()
                let result = try await sandbox.run(Binaries.lineup, ["demo"], in: package, timeout: .seconds(120))
                #expect(result.termination == .exited(0), "\(result.standardOutput)\n\(result.standardError)")
                let output = result.standardOutput
                let jobFiles = try FileManager.default.contentsOfDirectory(atPath: package.appending(path: "Jobs").path)
                    .filter { $0.hasSuffix(".job.json") }
                #expect(output.contains("spool: \(jobFiles.count + 4) done, 0 failed, 0 queued, 0 running"), "\(output)")
                // The feed on 127.0.0.1, fetched and imported, then found unchanged by its ETag.
                #expect(output.contains("(ndbc-latest-obs-rss): 0 observations inserted"), "\(output)")
                #expect(output.contains("unchanged since the last fetch (304 Not Modified); nothing imported"), "\(output)")
                // The flaky job failed once, was retried, and its second attempt was acknowledged.
                #expect(output.contains("retrying  demo-flaky-feed flaky-feed (attempt 1)"), "\(output)")
                #expect(output.contains("done      demo-flaky-feed flaky-feed (attempt 2)"), "\(output)")
                // The scheduled job did not start before its time, 3 s after it was enqueued.
                let started = try #require(
                    output.split(separator: "\n").first { $0.hasPrefix("started   statistics statistics-after-prune") })
                let seconds = try #require(started.split(separator: "+").last.flatMap { Double($0.split(separator: " ")[0]) })
                #expect(seconds >= 2.9, "\(started)")
                #expect(output.contains("LNP02 (SALTMARSH POINT - 15 NM West of Saltmarsh Point): 52 observations"), "\(output)")
            }
        }
    }
}
