import Foundation
import Testing

/// The unit files an operator installs (`deploy/lineupd.service` on SQLite,
/// `deploy/lineupd-postgres.service` on PostgreSQL), checked by systemd's own verifier with the
/// built `lineupd` in their ExecStart, and against what `lineupd` needs.
@Suite("The systemd unit files")
struct SystemdUnitTests {
    static let deployDirectory = BuoyFixtures.samplesDirectory.deletingLastPathComponent().appending(path: "deploy")
    static let unitFile = deployDirectory.appending(path: "lineupd.service")
    static let postgresUnitFile = deployDirectory.appending(path: "lineupd-postgres.service")
    static let verifier = "/usr/bin/systemd-analyze"

    /// The `Key=value` lines of the unit, every value of a repeated key kept.
    static func settings(of unitFile: URL = unitFile) throws -> [String: [String]] {
        var settings: [String: [String]] = [:]
        for line in try String(contentsOf: unitFile, encoding: .utf8).split(separator: "\n") {
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    @Test(
        "systemd-analyze verify accepts it, without a warning",
        .enabled(if: FileManager.default.isExecutableFile(atPath: verifier), "systemd-analyze is not installed"),
        arguments: [unitFile, postgresUnitFile])
    func verifies(_ unitFile: URL) async throws {
        try await withSandbox { sandbox in
            // The verifier checks that ExecStart's binary exists: point it at the one built.
            let unit = try String(contentsOf: unitFile, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/lineupd", with: Binaries.lineupd.path)
            let copy = sandbox.root.appending(path: unitFile.lastPathComponent)
            try Data(unit.utf8).write(to: copy)
            let result = try await sandbox.run(URL(fileURLWithPath: Self.verifier), ["verify", copy.path])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(result.standardError.isEmpty && result.standardOutput.isEmpty, "\(result.standardError)\(result.standardOutput)")
        }
    }

    @Test("it is Type=notify with a watchdog, lets lineupd write where its options point, and outwaits its shutdown")
    func agreesWithLineupd() throws {
        let settings = try Self.settings()
        #expect(settings["Type"] == ["notify"])
        #expect(settings["WatchdogSec"].flatMap { $0.first.flatMap(Int.init) }.map { $0 > 0 } == true)
        #expect(settings["KillSignal"] == ["SIGTERM"])
        #expect(settings["NoNewPrivileges"] == ["true"])
        #expect(settings["ProtectSystem"] == ["strict"])
        #expect(settings["User"].map { $0 != ["root"] } == true)

        // Grace period 20 s + cancellation timeout 5 s + the final flush's 60 s: lineupd's own
        // backstop. systemd must not SIGKILL before it.
        let stopTimeout = try #require(settings["TimeoutStopSec"]?.first.flatMap(Int.init))
        #expect(stopTimeout > 85)

        let arguments = try #require(settings["ExecStart"]?.first).split(separator: " ").map(String.init)
        func option(_ name: String) throws -> String {
            let index = try #require(arguments.firstIndex(of: name), "ExecStart has no \(name)")
            return arguments[index + 1]
        }
        let writable = (settings["ReadWritePaths"] ?? []).flatMap { $0.split(separator: " ").map(String.init) }
        let readable = writable + (settings["ReadOnlyPaths"] ?? []).flatMap { $0.split(separator: " ").map(String.init) }
        func isUnder(_ path: String, _ roots: [String]) -> Bool {
            roots.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        for name in ["--store", "--spool", "--output"] {
            let path = try option(name)
            #expect(isUnder(path, writable), "\(name) \(path) is not in ReadWritePaths \(writable)")
        }
        #expect(isUnder(try option("--input"), readable))
    }

    /// The PostgreSQL unit's secrets come as systemd credentials, read as libpq reads them: the
    /// password from the .pgpass file that PGPASSFILE names, the client key from `sslkey`; none is
    /// in the unit, and the server is verified.
    @Test("the PostgreSQL unit takes its password and client key as credentials, and verifies the server")
    func postgresUnitKeepsItsSecretsOut() throws {
        let settings = try Self.settings(of: Self.postgresUnitFile)
        let credentials = Dictionary(
            uniqueKeysWithValues: (settings["LoadCredential"] ?? []).map { line in
                let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            })
        #expect(Set(credentials.keys) == ["pgpass", "client.key"])
        #expect(settings["Environment"]?.contains("PGPASSFILE=%d/pgpass") == true)
        let execStart = try #require(settings["ExecStart"]?.first)
        let arguments = execStart.split(separator: " ").map(String.init)
        let database = try #require(arguments.firstIndex(of: "--database").map { arguments[$0 + 1] })
        // As systemd hands it over: %d is the credentials' directory. Read by hand: URLComponents
        // takes one host, and the URL lists two.
        let credentialsDirectory = "/run/credentials/lineupd-postgres.service"
        let expanded = database.replacingOccurrences(of: "%d", with: credentialsDirectory)
        let halves = expanded.split(separator: "?", maxSplits: 1).map(String.init)
        try #require(halves.count == 2, "the URL has no query: \(expanded)")
        let (authority, queryText) = (halves[0], halves[1])
        let userInfo = try #require(authority.dropFirst("postgres://".count).split(separator: "@").first)
        #expect(!userInfo.contains(":"), "the URL carries a password")
        #expect(!queryText.contains("password="), "the URL carries a password")
        let query = Dictionary(
            uniqueKeysWithValues: queryText.split(separator: "&").map { item in
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            })
        #expect(query["sslmode"] == "verify-full")
        #expect(query["sslkey"] == credentialsDirectory + "/client.key")
        #expect(query["target_session_attrs"] == "read-write")
        #expect(settings["Type"] == ["notify"])
        #expect(settings["After"]?.joined(separator: " ").contains("network-online.target") == true)
    }
}
