import Foundation
import Testing

/// The unit file an operator installs (`deploy/lineupd.service`), checked by systemd's own
/// verifier with the built `lineupd` in its ExecStart, and against what `lineupd` needs.
@Suite("The systemd unit file")
struct SystemdUnitTests {
    static let unitFile = BuoyFixtures.samplesDirectory.deletingLastPathComponent().appending(path: "deploy/lineupd.service")
    static let verifier = "/usr/bin/systemd-analyze"

    /// The `Key=value` lines of the unit, every value of a repeated key kept.
    static func settings() throws -> [String: [String]] {
        var settings: [String: [String]] = [:]
        for line in try String(contentsOf: unitFile, encoding: .utf8).split(separator: "\n") {
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    @Test(
        "systemd-analyze verify accepts it, without a warning",
        .enabled(if: FileManager.default.isExecutableFile(atPath: verifier), "systemd-analyze is not installed"))
    func verifies() async throws {
        try await withSandbox { sandbox in
            // The verifier checks that ExecStart's binary exists: point it at the one built.
            let unit = try String(contentsOf: Self.unitFile, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/lineupd", with: Binaries.lineupd.path)
            let copy = sandbox.root.appending(path: "lineupd.service")
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
}
