import Foundation
import LineupJobs
import LineupSpool
import Logging
import SurfJournalFeeds
import Testing

/// `deploy/lineupd.json`, the configuration the README shows for keeping a journal current with
/// `cron`: it loads, it allows NDBC's host, and each of its fetch-buoy jobs is accepted by a
/// fetcher with that policy (nothing is fetched).
@Suite("Example configuration")
struct ExampleConfigurationTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/lineupd.json")

    @Test("deploy/lineupd.json fetches NDBC's latest_obs feed on a schedule, from an allowed host")
    func loads() async throws {
        let base = DaemonConfiguration(
            storeURL: URL(fileURLWithPath: "/tmp/store.sqlite"), spoolURL: URL(fileURLWithPath: "/tmp/spool"),
            inputDirectory: URL(fileURLWithPath: "/tmp"), outputDirectory: URL(fileURLWithPath: "/tmp"))
        let configuration = try DaemonConfigurationFile.load(Self.file, over: base)
        try configuration.validate()
        #expect(configuration.allowedHosts == ["www.ndbc.noaa.gov"])
        let fetches = configuration.cron.filter { $0.job.kind == FetchBuoyTask.kind }
        #expect(fetches.contains { $0.job.fields["url"] == .string("https://www.ndbc.noaa.gov/data/latest_obs/42002.rss") })
        try await FeedJobFixture.with(allowedHosts: configuration.allowedHosts.sorted()) { fixture, _ in
            for entry in fetches {
                let request = JobRequest(
                    jobID: entry.name, name: entry.name, file: entry.job, jobFilePath: "\(entry.name).job.json",
                    paths: PathPolicy(inputDirectory: fixture.root, outputDirectory: fixture.root), container: fixture.container,
                    logger: .init(label: "test"))
                let task = try fixture.registry.makeTask(for: request)
                #expect(task is FetchBuoyTask, "\(entry.name)")
            }
        }
    }
}
