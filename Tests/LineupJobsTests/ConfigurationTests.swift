import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

@Suite(.daemonTestTimeLimit) struct ConfigurationTests {
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

    @Test("durations as text: seconds, or a number with s, m, h or d")
    func durationsAsText() throws {
        #expect(try DaemonConfiguration.duration(text: "90", of: "--x") == .seconds(90))
        #expect(try DaemonConfiguration.duration(text: "90s", of: "--x") == .seconds(90))
        #expect(try DaemonConfiguration.duration(text: "10m", of: "--x") == .seconds(600))
        #expect(try DaemonConfiguration.duration(text: "12h", of: "--x") == .seconds(43_200))
        #expect(try DaemonConfiguration.duration(text: "7d", of: "--x") == .seconds(604_800))
        for bad in ["", "d", "7w", "-1d", "400d", "nan"] {
            #expect(throws: DaemonError.self, "\(bad)") { try DaemonConfiguration.duration(text: bad, of: "--x") }
        }
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
        #expect(error?.message == "`concurrency` must be from 1 to 1024; found 0")
    }

    /// LineupJobs opens SQLite only: a daemon whose configuration names a database, but that was
    /// given no driver for it, refuses to start and says what to link, before it opens anything.
    @Test func aDatabaseWithoutItsDriverIsRefusedNamingTheModule() async throws {
        var configuration = base()
        configuration.spoolURL = directory.appending(path: "spool")
        configuration.outputDirectory = directory.appending(path: "output")
        configuration.databaseURL = URL(string: "postgres://lineup:secret@db.example:5432/lineup")
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = JobDaemon(
            configuration: configuration, registry: JobRegistry(), model: ManagedObjectModel(types: []), logger: Logger(label: "test"))
        let error = try await #require(throws: DaemonError.self) { try await daemon.run() }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("LineupPostgres"), "\(error)")
        #expect(!error.description.contains("secret"), "\(error)")
    }
}

/// Every key of the configuration file and every range: a clear message naming the file and the
/// key, never a trap.
@Suite struct ConfigurationValueTests {
    let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-config-tests-\(UUID().uuidString)")

    func load(_ text: String) throws -> DaemonConfiguration {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appending(path: "lineupd.json")
        try Data(text.utf8).write(to: url)
        var configuration = try DaemonConfigurationFile.load(
            url,
            over: DaemonConfiguration(
                storeURL: directory.appending(path: "s.sqlite"), spoolURL: directory.appending(path: "spool"),
                inputDirectory: directory, outputDirectory: directory))
        configuration.configurationFile = url
        try configuration.validate()
        return configuration
    }

    @Test(arguments: [
        (#"{"flushIntervall": 5}"#, "unknown key `flushIntervall`"),
        (#"{"concurrency": "2"}"#, "`concurrency` must be a whole number"),
        (#"{"concurrency": 2.5}"#, "`concurrency` must be a whole number; found a fraction"),
        (#"{"concurrency": 1e300}"#, "`concurrency` must be a whole number; found the number"),
        (#"{"inotify": 1}"#, "`inotify` must be true or false"),
        (#"{"spool": 7}"#, "`spool` must be a string"),
        (#"{"flushInterval": null}"#, "`flushInterval` must be a number (of seconds); found null"),
        (#"{"flushInterval": true}"#, "`flushInterval` must be a number (of seconds); found true or false"),
        (#"{"flushInterval": 1e300}"#, "`flushInterval` must be a number of seconds, 0 or more, and at most 31536000"),
        (#"{"flushInterval": -0.5}"#, "`flushInterval` must be a number of seconds, 0 or more"),
        (#"{"flushInterval": 0}"#, "`flushInterval` must be more than 0 s"),
        (#"{"rescanInterval": 0}"#, "`rescanInterval` must be more than 0 s"),
        (#"{"statusInterval": 0}"#, "`statusInterval` must be more than 0 s"),
        (#"{"flushFailureTimeout": 0}"#, "`flushFailureTimeout` must be more than 0 s"),
        (#"{"gracePeriod": 40000000}"#, "`gracePeriod` must be a number of seconds"),
        (#"{"maxDelay": -1}"#, "`maxDelay` must be a number of seconds"),
        (#"{"concurrency": 0}"#, "`concurrency` must be from 1 to 1024; found 0"),
        (#"{"concurrency": -3}"#, "`concurrency` must be from 1 to 1024; found -3"),
        (#"{"concurrency": 5000}"#, "`concurrency` must be from 1 to 1024; found 5000"),
        (#"{"claimWindow": 0}"#, "`claimWindow` must be from 1"),
        (#"{"databaseConnections": 8}"#, "`databaseConnections` needs `database`"),
        (#"{"databaseConnections": "8", "database": "postgres://db.example/lineup"}"#, "`databaseConnections` must be a whole number"),
        (#"{"databaseConnections": 7, "concurrency": 2, "database": "postgres://db.example/lineup"}"#,
         "`databaseConnections` must be from 8 to 10000; found 7"),
        (#"{"databaseConnections": 20000, "concurrency": 2, "database": "postgres://db.example/lineup"}"#,
         "`databaseConnections` must be from 8 to 10000; found 20000"),
        (#"{"maxAttempts": 100000}"#, "`maxAttempts` must be from 1 to 1000"),
        (#"{"poisonThreshold": 0}"#, "`poisonThreshold` must be from 1 to 1000"),
        (#"{"flushBacklogLimit": 0}"#, "`flushBacklogLimit` must be from 1"),
        (#"{"logLevel": 3}"#, "`logLevel`"),
        (#"{"timeout": 0}"#, "`timeout` must be more than 0 s"),
        (#"{"cron": {"name": "n"}}"#, "`cron` must be a list of recurring jobs such as"),
        (#"{"cron": [{"name": "n", "schedule": "0 3 * *", "job": {"kind": "statistics"}}]}"#, "`cron`: cron expression \"0 3 * *\": a cron expression has 5 fields"),
        (#"{"cron": [{"name": "a b", "schedule": "0 3 * * *", "job": {"kind": "statistics"}}]}"#, "a cron job's name must be 1 to 100 letters"),
        (#"{"cron": [{"name": "n", "schedule": "0 3 * * *", "job": {"id": "x"}}]}"#, "job file has no `kind` field"),
        (#"{"queues": {"imports": {"concurrency": 1}}}"#, "`queues` must be an object of queues such as"),
        (#"{"queues": {"imports": {"concurrency": 1.5, "kinds": ["import-buoy"]}}}"#, "`queues` must be an object of queues"),
        (#"{"queues": {"imports": {"concurrency": 0, "kinds": ["import-buoy"]}}}"#, "`queues.imports.concurrency` must be from 1 to 1024; found 0"),
        (#"{"queues": {"imports": {"concurrency": 1, "kinds": []}}}"#, "`queues.imports` must have a name and list one job kind or more"),
        (#"{"queues": {"a": {"concurrency": 1, "kinds": ["k"]}, "b": {"concurrency": 2, "kinds": ["k"]}}}"#, "job kind `k` is in two queues, `a` and `b`"),
        (#"{"timeoutByKind": 600}"#, "`timeoutByKind` must be an object of numbers (of seconds) by job kind; found the number 600"),
        (#"{"timeoutByKind": {"import-buoy": "10m"}}"#, "`timeoutByKind` must be an object of numbers (of seconds) by job kind"),
        (#"{"timeoutByKind": {"import-buoy": -1}}"#, "`timeoutByKind.import-buoy` must be a number of seconds, 0 or more"),
        (#"{"timeoutByKind": {"import-buoy": 0}}"#, "`timeoutByKind.import-buoy` must be more than 0 s"),
        (#"[1, 2]"#, "it must be a JSON object"),
    ])
    func badValueIsRefusedNamingTheFileAndTheKey(text: String, message: String) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: DaemonError.self) { try load(text) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.path == directory.appending(path: "lineupd.json").path)
        #expect(error.message.contains(message), "\(error.message)")
    }

    /// The bound is shared out: the four connections every daemon holds, the readers (one a job
    /// at once and one more at the least, the store's default at the most), one or two for the
    /// jobs; the start-up line shows the total in effect.
    @Test func databaseConnectionsAreReadAndShareOutTheBound() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = #""database": "postgres://lineup@db.example/lineup", "concurrency": 2"#
        let unbounded = try load("{\(database)}")
        #expect(unbounded.databaseConnections == nil)
        #expect(unbounded.databaseConnectionBudget == DatabaseConnectionBudget(forConcurrentTasks: 2, limit: nil))
        #expect(unbounded.databaseConnectionBudget.storeReaders == 5 && unbounded.databaseConnectionBudget.jobConnections == 2)
        #expect(unbounded.databaseConnectionBudget.total == 11)
        #expect(unbounded.summary.contains("databaseConnections=11 "), "\(unbounded.summary)")

        let smallest = try load(#"{"databaseConnections": 8, "# + database + "}")
        #expect(smallest.databaseConnections == 8)
        #expect(smallest.databaseConnectionBudget.storeReaders == 3 && smallest.databaseConnectionBudget.jobConnections == 1)
        #expect(smallest.summary.contains("databaseConnections=8 "), "\(smallest.summary)")
        let nine = try load(#"{"databaseConnections": 9, "# + database + "}").databaseConnectionBudget
        #expect(nine.storeReaders == 3 && nine.jobConnections == 2 && nine.total == 9)
        let ten = try load(#"{"databaseConnections": 10, "# + database + "}").databaseConnectionBudget
        #expect(ten.storeReaders == 4 && ten.jobConnections == 2 && ten.total == 10)
        // More than the daemon would use is a bound it stays under, not connections it opens.
        let generous = try load(#"{"databaseConnections": 100, "# + database + "}").databaseConnectionBudget
        #expect(generous == unbounded.databaseConnectionBudget)

        #expect(smallest.settingsNeedingRestart(toBecome: unbounded) == ["databaseConnections"])
        // A reload that widens the queue past the readers the bound leaves is refused.
        var wider = smallest
        wider.maxConcurrentJobs = 3
        let error = try #require(throws: DaemonError.self) { try wider.validate() }
        #expect(error.message.contains("`databaseConnections` must be from 9"), "\(error.message)")
    }

    @Test func timeoutsAreReadByKindAndReloadable() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(#"{"timeout": 3600, "timeoutByKind": {"import-buoy": 600, "export-csv": 0.5}}"#)
        #expect(configuration.timeout == .seconds(3600))
        #expect(configuration.timeoutByKind == ["import-buoy": .seconds(600), "export-csv": .milliseconds(500)])
        var base = configuration
        base.timeout = nil
        base.timeoutByKind = [:]
        #expect(base.reloading(from: configuration).timeoutByKind == configuration.timeoutByKind)
        #expect(base.settingsNeedingRestart(toBecome: configuration).isEmpty)
    }

    @Test func flushWhenIdleIsReadAndReloadable() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(#"{"flushWhenIdle": false}"#)
        #expect(!configuration.flushesWhenIdle)
        #expect(try load("{}").flushesWhenIdle, "on by default")
        var base = configuration
        base.flushesWhenIdle = true
        #expect(!base.reloading(from: configuration).flushesWhenIdle)
        #expect(base.settingsNeedingRestart(toBecome: configuration).isEmpty)
        let error = try #require(throws: DaemonError.self) { try load(#"{"flushWhenIdle": "no"}"#) }
        #expect(error.message.contains("`flushWhenIdle` must be true or false"), "\(error.message)")
    }

    /// The two flush limits, read and reloaded alike.
    enum FlushLimit: String, CaseIterable, Sendable {
        case flushRowLimit, flushJobLimit

        var setting: WritableKeyPath<DaemonConfiguration, Int> {
            switch self {
            case .flushRowLimit: \.flushRowLimit
            case .flushJobLimit: \.flushJobLimit
            }
        }

        var defaultValue: Int {
            switch self {
            case .flushRowLimit: DaemonConfiguration.defaultFlushRowLimit
            case .flushJobLimit: DaemonConfiguration.defaultFlushJobLimit
            }
        }
    }

    @Test(arguments: FlushLimit.allCases)
    func flushLimitsAreReadAndReloadable(limit: FlushLimit) throws {
        let (key, setting, defaultValue) = (limit.rawValue, limit.setting, limit.defaultValue)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(#"{"\#(key)": 0}"#)
        #expect(configuration[keyPath: setting] == 0)
        #expect(try load("{}")[keyPath: setting] == defaultValue)
        var base = configuration
        base[keyPath: setting] = 5_000
        #expect(base.reloading(from: configuration)[keyPath: setting] == 0)
        #expect(base.settingsNeedingRestart(toBecome: configuration).isEmpty)
        let negative = try #require(throws: DaemonError.self) { try load(#"{"\#(key)": -1}"#) }
        #expect(negative.message.contains("`\(key)` must be from 0"), "\(negative.message)")
        let text = try #require(throws: DaemonError.self) { try load(#"{"\#(key)": "many"}"#) }
        #expect(text.message.contains("`\(key)` must be a whole number"), "\(text.message)")
    }

    @Test func cronJobsAreReadAndReloadable() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try load(
            #"{"cron": [{"name": "nightly", "schedule": "0 3 * * *", "job": {"kind": "export-csv", "entity": "JournalEntry", "output": "n.csv"}}]}"#)
        let entry = try #require(configuration.cron.first)
        #expect(entry.name == "nightly" && entry.schedule.description == "0 3 * * *" && entry.job.kind == "export-csv")
        var base = configuration
        base.cron = []
        #expect(base.reloading(from: configuration).cron == configuration.cron)
        #expect(base.settingsNeedingRestart(toBecome: configuration).isEmpty)
        configuration.cron.append(entry)
        #expect(throws: DaemonError.self) { try configuration.validate() }
    }

    @Test func allowedHostsAreReadCheckedAndReloadable() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(#"{"allowedHosts": ["www.ndbc.noaa.gov", "SDF.NDBC.NOAA.GOV"]}"#)
        #expect(configuration.allowedHosts == ["www.ndbc.noaa.gov", "sdf.ndbc.noaa.gov"])
        #expect(configuration.summary.contains("allowedHosts=sdf.ndbc.noaa.gov,www.ndbc.noaa.gov"))
        var base = configuration
        base.allowedHosts = []
        #expect(base.reloading(from: configuration).allowedHosts == configuration.allowedHosts)
        #expect(base.settingsNeedingRestart(toBecome: configuration).isEmpty)
        for bad in [#"["https://www.ndbc.noaa.gov"]"#, #"["*.noaa.gov"]"#, #"["www.ndbc.noaa.gov:443"]"#, #"[""]"#] {
            let error = try #require(throws: DaemonError.self, "\(bad)") { try load(#"{"allowedHosts": "# + bad + "}") }
            #expect(error.message.contains("`allowedHosts` must list host names"), "\(error)")
        }
        let notAList = try #require(throws: DaemonError.self) { try load(#"{"allowedHosts": "www.ndbc.noaa.gov"}"#) }
        #expect(notAList.message.contains("`allowedHosts` must be a list of strings"), "\(notAList)")
    }

    @Test func queuesAreReadAndNeedARestart() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(
            #"{"concurrency": 2, "queues": {"imports": {"concurrency": 1, "kinds": ["import-buoy", "import-coredata"]}, "exports": {"concurrency": 4, "kinds": ["export-csv"]}}}"#)
        #expect(configuration.queues["imports"] == DaemonConfiguration.NamedQueue(kinds: ["import-buoy", "import-coredata"], concurrency: 1))
        #expect(configuration.queueName(forKind: "export-csv") == "exports")
        #expect(configuration.queueName(forKind: "statistics") == nil)
        #expect(configuration.totalConcurrency == 7)
        #expect(configuration.effectiveClaimWindow == 28)
        var base = configuration
        base.queues = [:]
        #expect(base.settingsNeedingRestart(toBecome: configuration) == ["queues"])
    }

    @Test func largestValuesAreAccepted() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try load(
            #"{"flushInterval": 31536000, "gracePeriod": 0, "concurrency": 1024, "maxAttempts": 1000, "flushBacklogLimit": 10000000}"#)
        #expect(configuration.flushInterval == .seconds(31_536_000))
        #expect(configuration.maxConcurrentJobs == 1024)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -1, 31_536_001, 1e300])
    func aDurationThatWouldNotConvertIsRefused(seconds: Double) {
        let error = #expect(throws: DaemonError.self) { try DaemonConfiguration.duration(seconds: seconds, of: "--flush-interval") }
        #expect(error?.message.hasPrefix("`--flush-interval` must be a number of seconds") == true)
    }
}

@Suite struct ReloadDifferenceTests {
    /// A plain SIGHUP used to warn that the spool "needs a restart": the spool's URL made at start,
    /// before its directory existed, lacked the trailing slash that the same option gets once it does.
    @Test func theSameLocationsBeforeAndAfterTheirDirectoriesExistNeedNoRestart() throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-reload-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        func configuration() -> DaemonConfiguration {
            DaemonConfiguration(
                storeURL: URL(fileURLWithPath: "s.sqlite", relativeTo: root).standardizedFileURL,
                spoolURL: URL(fileURLWithPath: "spool", relativeTo: root).standardizedFileURL,
                inputDirectory: root, outputDirectory: URL(fileURLWithPath: "output", relativeTo: root).standardizedFileURL)
        }
        let atStart = configuration()
        for directory in ["spool", "output"] {
            try FileManager.default.createDirectory(at: root.appending(path: directory), withIntermediateDirectories: true)
        }
        var atReload = configuration()
        #expect(atStart.settingsNeedingRestart(toBecome: atReload) == [])
        atReload.spoolURL = root.appending(path: "other-spool")
        atReload.maxInterruptions = 9
        atReload.flushInterval = .seconds(1)
        #expect(atStart.settingsNeedingRestart(toBecome: atReload) == ["spool", "poisonThreshold"])
    }
}
