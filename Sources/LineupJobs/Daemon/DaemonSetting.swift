import Foundation

/// One setting of a ``DaemonConfiguration``, described once: the property it sets, its key in
/// the configuration file, its `lineupd` option, its default, what it means, and whether a
/// reload changes it.
///
/// ``all`` lists every setting. ``DaemonConfiguration/reloading(from:)`` and
/// ``DaemonConfiguration/settingsNeedingRestart(toBecome:)`` are read from it, `lineupd` takes
/// its options' names and defaults from it, and the table of settings in
/// <doc:OperatingTheDaemon> is ``markdownTable``; tests hold the configuration file's keys,
/// `lineupd`'s options and the article to it.
public struct DaemonSetting: Sendable {
    /// The ``DaemonConfiguration`` property it sets, as a Swift key path reads without its root:
    /// `flushInterval`, `retry.maxAttempts`.
    public let name: String
    /// Its key in the configuration file (``DaemonConfigurationFile``); nil when the file has none.
    public let fileKey: String?
    /// Its `lineupd` option, without the leading `--`; nil when there is none.
    public let flag: String?
    /// Its default, as a person reads it (`5 s`, `none`).
    public let defaultText: String
    /// What it means, in a line.
    public let meaning: String
    /// What a reload (SIGHUP, ``JobDaemon/reload()``) does with it.
    public let reload: Reload

    /// What a reload does with a setting.
    public enum Reload: Sendable, Hashable {
        /// A reload applies it: the daemon runs with the new value at once.
        case applies
        /// A reload keeps the value in effect and names the setting in its warning; a restart
        /// applies it (``DaemonConfiguration/settingsNeedingRestart(toBecome:)``).
        case needsRestart
    }

    /// The name a reload's warning gives the setting when it needs a restart: its file key, or,
    /// for a setting the file does not have, its property.
    public var reportedName: String { fileKey ?? name }

    /// The property, for tests that hold ``name`` to it.
    let keyPath: any PartialKeyPath<DaemonConfiguration> & Sendable
    /// Sets the setting of the first configuration to that of the second.
    private let copy: @Sendable (inout DaemonConfiguration, DaemonConfiguration) -> Void
    /// Whether two configurations differ in the setting.
    private let differ: @Sendable (DaemonConfiguration, DaemonConfiguration) -> Bool

    /// Describes the setting at `keyPath`. `isSame` says when two values are the same setting
    /// (by default, when they are equal).
    init<Value: Equatable & Sendable>(
        _ name: String, _ keyPath: any WritableKeyPath<DaemonConfiguration, Value> & Sendable, fileKey: String?, flag: String? = nil,
        default defaultText: String, reload: Reload, meaning: String,
        isSame: @escaping @Sendable (Value, Value) -> Bool = { $0 == $1 }
    ) {
        self.name = name
        self.keyPath = keyPath
        self.fileKey = fileKey
        self.flag = flag
        self.defaultText = defaultText
        self.reload = reload
        self.meaning = meaning
        self.copy = { $0[keyPath: keyPath] = $1[keyPath: keyPath] }
        self.differ = { !isSame($0[keyPath: keyPath], $1[keyPath: keyPath]) }
    }

    /// Describes a location: two URLs name the same one when their standardized paths are equal.
    /// `URL(fileURLWithPath:)` marks a directory that exists with a trailing slash, so the
    /// spool's URL read at start (before the directory was made) and at a reload would
    /// otherwise differ.
    static func location(
        _ name: String, _ keyPath: any WritableKeyPath<DaemonConfiguration, URL> & Sendable, fileKey: String, flag: String,
        default defaultText: String, meaning: String
    ) -> DaemonSetting {
        DaemonSetting(
            name, keyPath, fileKey: fileKey, flag: flag, default: defaultText, reload: .needsRestart, meaning: meaning,
            isSame: { $0.standardizedFileURL.path == $1.standardizedFileURL.path })
    }

    /// Sets this setting of `configuration` to its value in `other`.
    func copy(from other: DaemonConfiguration, into configuration: inout DaemonConfiguration) {
        copy(&configuration, other)
    }

    /// Whether `one` and `other` differ in this setting.
    func differs(_ one: DaemonConfiguration, _ other: DaemonConfiguration) -> Bool {
        differ(one, other)
    }

    /// ``all`` as the Markdown table of <doc:OperatingTheDaemon>, which a test holds to the article.
    public static var markdownTable: String {
        func code(_ text: String?, prefix: String = "") -> String { text.map { "`\(prefix)\($0)`" } ?? "—" }
        let rows = all.map { setting in
            let cells = [
                code(setting.name), code(setting.fileKey), code(setting.flag, prefix: "--"), setting.defaultText,
                setting.reload.tableText, setting.meaning,
            ]
            return "| " + cells.joined(separator: " | ") + " |"
        }
        return (["| setting | file key | option | default | on SIGHUP | meaning |", "|---|---|---|---|---|---|"] + rows)
            .joined(separator: "\n")
    }
}

extension DaemonSetting.Reload {
    /// How the table of settings says it.
    var tableText: String {
        switch self {
        case .applies: "applied"
        case .needsRestart: "needs a restart"
        }
    }
}
