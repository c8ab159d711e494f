import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Recurring jobs")
    struct CronCommandTests {
        /// `* * * * *` fires in every minute: the job of the minute lineupd starts in is enqueued
        /// at once, and a restart in the same minute does not enqueue it again.
        @Test("a cron job in the configuration file is enqueued once a period, across a restart")
        func cronJobOncePerPeriod() async throws {
            try await withSandbox { sandbox in
                let config = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"flushInterval": 0.2, "cron": [{"name": "minutely", "schedule": "* * * * *", "job": {"kind": "statistics", "output": "minutely.json"}}]}"#
                        .utf8
                ).write(to: config)
                let began = Date()
                let daemon = try await sandbox.startDaemon(["--config", config.path])
                try await sandbox.poll("the recurring job to be done", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.enqueuedJobFiles("done").contains { $0.hasPrefix("cron-minutely-") }
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                let again = try await sandbox.startDaemon(["--config", config.path])
                try await Task.sleep(for: .seconds(1))
                again.send(SIGTERM)
                #expect(try await again.waitForExit(timeout: .seconds(60)) == .exited(0))
                let ended = Date()

                let names = try ["new", "active", "done", "failed"].flatMap { try sandbox.enqueuedJobFiles($0) }
                    .filter { $0.hasPrefix("cron-minutely-") }
                #expect(Set(names).count == names.count, "a period enqueued twice: \(names)")
                // One a minute at most: the minutes the two runs spanned.
                let minutes = Int(ended.timeIntervalSince1970 / 60) - Int(began.timeIntervalSince1970 / 60) + 1
                #expect(!names.isEmpty && names.count <= minutes, "\(names) in \(minutes) minute(s)")
                #expect(FileManager.default.fileExists(atPath: sandbox.spool.appending(path: "cron.json").path))
                #expect(sandbox.daemonLog.contains("recurring job enqueued"))
            }
        }
    }
}
