import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineupd` under systemd's `Type=notify`, with the socket bound here as systemd binds it.
    @Suite("systemd notifications")
    struct SystemdNotifyTests {
        @Test("lineupd says when it is ready, feeds the watchdog between flushes, and says when it reloads and stops")
        func notifiesSystemd() async throws {
            try await withSandbox { sandbox in
                let socket = try NotifySocket(path: sandbox.root.appending(path: "notify").path)
                // A watchdog of 400 ms against a flush every hour: only the loop's own feeding
                // keeps it fed.
                let daemon = try await sandbox.startDaemon(
                    ["--flush-interval", "3600", "--no-flush-when-idle"], environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
                let ready = try socket.waitFor("READY=1", timeout: .seconds(30)) { $0.contains("READY=1") }
                #expect(ready.contains("STATUS=running 0, queued 0"), "\(ready)")

                try await Task.sleep(for: .seconds(2))
                let fed = socket.messages.filter { $0 == "WATCHDOG=1" }.count
                #expect(fed >= 6, "fed \(fed) times in 2 s with a 400 ms watchdog: \(socket.messages)")

                daemon.send(SIGHUP)
                let reloading = try socket.waitFor("RELOADING=1", timeout: .seconds(30)) { $0.hasPrefix("RELOADING=1") }
                #expect(reloading.contains("\nMONOTONIC_USEC="), "\(reloading)")
                _ = try socket.waitFor("READY=1 after the reload", timeout: .seconds(30)) { $0 == "READY=1" }

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                #expect(socket.messages.contains { $0.hasPrefix("STOPPING=1") }, "\(socket.messages)")
            }
        }
    }
}
