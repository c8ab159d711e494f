import Foundation
import LineupJobs
import Logging
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConfigurationTests {
    let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-config-tests-\(UUID().uuidString)")

    func base() -> DaemonConfiguration {
        DaemonConfiguration(
            storeURL: URL(fileURLWithPath: "/var/lib/lineup/store.sqlite"), spoolURL: URL(fileURLWithPath: "/var/spool/lineup"),
            inputDirectory: URL(fileURLWithPath: "/srv/inbox"), outputDirectory: URL(fileURLWithPath: "/srv/exports"))
    }

    func write(_ text: String) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appending(path: "lineupd.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func defaultsFollowTheDesign() {
        let configuration = base()
        #expect(configuration.flushInterval == .seconds(5))
        #expect(configuration.gracePeriod == .seconds(20))
        #expect(configuration.maxConcurrentJobs == ProcessInfo.processInfo.activeProcessorCount)
        #expect(configuration.maxInterruptions == 3)
        #expect(configuration.retry == RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(300)))
    }

    @Test func fileOverridesWhatItSetsAndResolvesRelativePaths() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write(
            #"{"spool": "spool", "input": "/data/in", "concurrency": 3, "flushInterval": 0.5, "maxAttempts": 7, "logLevel": "debug"}"#)
        let configuration = try DaemonConfigurationFile.load(url, over: base())
        #expect(configuration.spoolURL.path == directory.appending(path: "spool").path)
        #expect(configuration.inputDirectory.path == "/data/in")
        #expect(configuration.storeURL.path == "/var/lib/lineup/store.sqlite")
        #expect(configuration.maxConcurrentJobs == 3)
        #expect(configuration.flushInterval == .milliseconds(500))
        #expect(configuration.retry.maxAttempts == 7)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.configurationFile == url)
    }

    @Test(arguments: [
        (#"{"flushInterval": "soon"}"#, "not a valid configuration file"),
        (#"{"gracePeriod": -1}"#, "`gracePeriod` must be a number of seconds, 0 or more"),
        (#"{"logLevel": "chatty"}"#, "not a valid configuration file"),
        (#"{"maxAttempts": 0}"#, "`maxAttempts` must be at least 1"),
        ("{", "not a valid configuration file"),
    ])
    func invalidFileIsRefusedNamingTheFile(text: String, message: String) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write(text)
        let error = try #require(throws: DaemonError.self) { try DaemonConfigurationFile.load(url, over: base()) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.path == url.path)
        #expect(error.message.contains(message))
    }

    @Test func reloadAppliesReloadableSettingsOnly() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        var fresh = harness.configuration
        fresh.flushInterval = .seconds(7)
        fresh.maxConcurrentJobs = 1
        fresh.logLevel = .debug
        fresh.storeURL = URL(fileURLWithPath: "/elsewhere/store.sqlite")
        let applied = try harness.daemon.reload(with: fresh)
        #expect(applied.flushInterval == .seconds(7))
        #expect(applied.maxConcurrentJobs == 1)
        #expect(applied.logLevel == .debug)
        #expect(applied.storeURL == harness.configuration.storeURL)
        #expect(harness.daemon.configuration == applied)
        try await events.next { if case let .reloaded(configuration) = $0 { configuration == applied } else { false } }
        #expect(await harness.daemon.status()?.maxConcurrentJobs == 1)
        #expect(await harness.daemon.status()?.flushInterval == 7)
        try await harness.stop(run)
    }

    @Test func reloadRereadsTheConfigurationFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write(#"{"flushInterval": 3600}"#)
        let harness = try DaemonHarness { configuration in
            configuration = try! DaemonConfigurationFile.load(url, over: configuration)
        }
        defer { harness.removeFiles() }
        let (_, run) = try await harness.start()
        try Data(#"{"flushInterval": 2, "concurrency": 1}"#.utf8).write(to: url)
        let applied = try harness.daemon.reload()
        #expect(applied.flushInterval == .seconds(2))
        #expect(applied.maxConcurrentJobs == 1)
        // A broken file leaves the settings in effect as they were.
        try Data("{".utf8).write(to: url)
        #expect(throws: DaemonError.self) { try harness.daemon.reload() }
        #expect(harness.daemon.configuration.flushInterval == .seconds(2))
        try await harness.stop(run)
    }

    @Test func invalidConfigurationStopsTheStart() async throws {
        let harness = try DaemonHarness { $0.maxConcurrentJobs = 0 }
        defer { harness.removeFiles() }
        let error = await #expect(throws: DaemonError.self) { try await harness.daemon.run() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message == "concurrency must be at least 1")
    }
}
