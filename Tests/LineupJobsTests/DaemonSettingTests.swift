import Foundation
import LineupSpool
import Testing

@testable import LineupJobs

/// Each setting described once (``DaemonSetting``): every stored property of a configuration is
/// described, each file key sets the property its description names, the reload and the restart
/// warning follow the descriptions, and the docs' table is theirs.
struct DaemonSettingTests {
    static let base = DaemonConfiguration(
        storeURL: URL(fileURLWithPath: "/var/lib/lineup/store.sqlite"), spoolURL: URL(fileURLWithPath: "/var/spool/lineup"),
        inputDirectory: URL(fileURLWithPath: "/srv/inbox"), outputDirectory: URL(fileURLWithPath: "/srv/exports"))

    /// For each file key, a value other than the default, as the file writes it. A setting added
    /// with a file key and no value here fails ``changed(_:)``.
    static let otherFileValues: [String: String] = [
        "store": #""other.sqlite""#, "database": #""postgres://db.example/lineup""#,
        "listenDatabase": #""postgres://direct.example/lineup""#, "lease": "60", "databaseConnections": "20",
        "spool": #""other-spool""#, "input": #""other-inbox""#, "output": #""other-exports""#,
        "concurrency": "1023", "claimWindow": "50", "flushInterval": "9", "flushWhenIdle": "false", "flushRowLimit": "7",
        "flushJobLimit": "7", "gracePeriod": "9", "cancellationTimeout": "9", "flushBacklogLimit": "7",
        "flushFailureTimeout": "9", "maxAttempts": "7", "baseDelay": "9", "maxDelay": "9", "dependencyWaitTimeout": "9",
        "rescanInterval": "9", "inotify": "false", "statusInterval": "9", "poisonThreshold": "7", "logLevel": #""debug""#,
        "keepDone": "9", "timeout": "9", "timeoutByKind": #"{"import-buoy": 9}"#,
        "queues": #"{"imports": {"concurrency": 1, "kinds": ["import-buoy"]}}"#,
        "cron": #"[{"name": "nightly", "schedule": "0 3 * * *", "job": {"kind": "statistics"}}]"#,
        "allowedHosts": #"["www.ndbc.noaa.gov"]"#, "otelEndpoint": #""http://127.0.0.1:4318""#,
        "limits": #"{"kind:import-buoy": {"running": 1}}"#,
    ]

    /// For each setting the file does not have, a change made in Swift.
    static let otherSwiftValues: [String: @Sendable (inout DaemonConfiguration) -> Void] = [
        "spoolDurability": { $0.spoolDurability = .none }
    ]

    /// The stored properties of a configuration that are no setting, and why.
    static let notSettings: [String: String] = [
        "configurationFile": "where the settings were read from; a reload re-reads it rather than changes it"
    ]

    /// ``base`` with `setting` changed: through the configuration file, or in Swift for a setting
    /// the file does not have.
    static func changed(_ setting: DaemonSetting) throws -> DaemonConfiguration {
        guard let key = setting.fileKey else {
            let change = try #require(otherSwiftValues[setting.name], "no other value of \(setting.name) to test with")
            var configuration = base
            change(&configuration)
            return configuration
        }
        let value = try #require(otherFileValues[key], "no other value of the file key \(key) to test with")
        let file = try JSONDecoder().decode(DaemonConfigurationFile.self, from: Data(#"{"\#(key)": \#(value)}"#.utf8))
        return file.applied(to: base, relativeTo: URL(fileURLWithPath: "/etc/lineup"))
    }

    /// The labels of the stored properties in which two values differ.
    static func differingProperties<Value>(_ one: Value, _ other: Value) -> [String] {
        zip(Mirror(reflecting: one).children, Mirror(reflecting: other).children).compactMap { mine, theirs in
            (mine.value as? AnyHashable) == (theirs.value as? AnyHashable) ? nil : mine.label
        }
    }

    @Test func everyStoredPropertyIsASettingOrSaysWhyNot() {
        let described = Set(DaemonSetting.all.map { String($0.name.prefix { $0 != "." }) })
        let properties = Set(Mirror(reflecting: Self.base).children.compactMap(\.label))
        #expect(properties.subtracting(Self.notSettings.keys) == described)
        #expect(described.isDisjoint(with: Self.notSettings.keys))
        // A setting described part by part (retry.maxAttempts) describes every part.
        for root in described {
            let parts = DaemonSetting.all.compactMap { $0.name.hasPrefix(root + ".") ? String($0.name.dropFirst(root.count + 1)) : nil }
            guard !parts.isEmpty, let value = Mirror(reflecting: Self.base).descendant(root) else { continue }
            #expect(Set(Mirror(reflecting: value).children.compactMap(\.label)) == Set(parts), "\(root)")
        }
    }

    @Test func namesFileKeysAndOptionsAreEachUsedOnce() {
        for names in [DaemonSetting.all.map(\.name), DaemonSetting.all.compactMap(\.fileKey), DaemonSetting.all.compactMap(\.flag)] {
            #expect(Set(names).count == names.count, "\(names)")
        }
        #expect(Set(DaemonSetting.all.map(\.reportedName)).count == DaemonSetting.all.count)
    }

    @Test func theFileHasAKeyForEverySettingThatNamesOneAndNoOther() {
        #expect(
            Set(DaemonConfigurationFile.CodingKeys.allCases.map(\.rawValue)) == Set(DaemonSetting.all.compactMap(\.fileKey)))
    }

    /// The setting of that name (the tests take names as arguments, which read well in their results).
    static func setting(named name: String) throws -> DaemonSetting {
        try #require(DaemonSetting.all.first { $0.name == name })
    }

    @Test(arguments: DaemonSetting.all.map(\.name))
    func aSettingChangesItsOwnPropertyAndNoOther(name: String) throws {
        let setting = try Self.setting(named: name)
        #expect(String(describing: setting.keyPath) == "\\DaemonConfiguration.\(setting.name)")
        let other = try Self.changed(setting)
        #expect(DaemonSetting.all.filter { $0.differs(Self.base, other) }.map(\.name) == [setting.name])
        #expect(Self.differingProperties(Self.base, other) == [String(setting.name.prefix { $0 != "." })])
    }

    @Test(arguments: DaemonSetting.all.map(\.name))
    func aReloadTakesASettingOnlyIfItApplies(name: String) throws {
        let setting = try Self.setting(named: name)
        let other = try Self.changed(setting)
        #expect(Self.base.reloading(from: other) == (setting.reload == .applies ? other : Self.base))
        let needsRestart = Self.base.settingsNeedingRestart(toBecome: other)
        #expect(needsRestart == (setting.reload == .needsRestart ? [setting.reportedName] : []))
    }

    /// What reloads, and the names a reload warns of, as they were before the descriptions.
    @Test func theSettingsAReloadTakesOrWarnsOfAreThoseItAlwaysHas() {
        let applied = DaemonSetting.all.filter { $0.reload == .applies }.map(\.name)
        #expect(
            Set(applied) == [
                "logLevel", "flushInterval", "flushesWhenIdle", "flushRowLimit", "flushJobLimit", "maxConcurrentJobs", "claimWindow",
                "retry.maxAttempts", "retry.baseDelay", "retry.maxDelay", "gracePeriod", "cancellationTimeout",
                "dependencyWaitTimeout", "flushBacklogLimit", "flushFailureTimeout", "keepDone", "timeout", "timeoutByKind", "cron",
                "allowedHosts",
            ])
        #expect(
            DaemonSetting.all.filter { $0.reload == .needsRestart }.map(\.reportedName) == [
                "store", "database", "listenDatabase", "lease", "databaseConnections", "spool", "input", "output", "rescanInterval",
                "inotify", "statusInterval", "spoolDurability", "poisonThreshold", "queues", "otelEndpoint", "limits",
            ])
    }

    @Test func operatingTheDaemonShowsTheTableOfSettings() throws {
        let table = try generatedText(
            inArticle: "OperatingTheDaemon", between: "<!-- DaemonSetting.markdownTable -->", and: "<!-- /DaemonSetting.markdownTable -->")
        #expect(table == DaemonSetting.markdownTable)
    }
}
