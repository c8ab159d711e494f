import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineup cancel` and the dashboard's cancel on a job that runs: a `fetch-buoy` job whose
    /// server accepts the connection and never answers, which would hang until its deadline.
    @Suite("Cancelling running jobs")
    struct CancelRunningCommandTests {
        /// A TCP port on loopback that accepts connections (the kernel's backlog does) and never
        /// answers; closed when the value goes.
        final class SilentServer {
            let descriptor: Int32
            let port: UInt16

            init() throws {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                self.descriptor = descriptor
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                address.sin_port = 0
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
                }
                guard bound == 0, listen(descriptor, 16) == 0 else {
                    close(descriptor)
                    throw HarnessError("cannot listen on loopback: errno \(errno)")
                }
                _ = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                port = UInt16(bigEndian: address.sin_port)
            }

            deinit { close(descriptor) }

            var url: String { "http://127.0.0.1:\(port)/data/latest_obs/42002.rss" }
        }

        /// Starts `lineupd` allowed to fetch from loopback, with its dashboard and the token.
        func startDaemonWithDashboard(_ sandbox: Sandbox) async throws -> (ChildProcess, URL) {
            let file = sandbox.root.appending(path: "token")
            try Data("\(DashboardTests.token)\n".utf8).write(to: file)
            let daemon = try await sandbox.startDaemon([
                "--allowed-host", "127.0.0.1", "--flush-interval", "0.2", "--http-address", "127.0.0.1:0",
                "--http-token-file", file.path,
            ])
            return (daemon, try await sandbox.httpEndpoint(of: daemon))
        }

        func enqueueStuckFetch(_ sandbox: Sandbox, id: String, server: SilentServer) async throws {
            let enqueued = try await sandbox.lineup(["enqueue", "fetch-buoy", "url=\(server.url)", "--id", id, "--spool", "spool"])
            try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
        }

        @Test("lineup cancel stops a running job: it fails as cancelled by an operator, at once and without retries")
        func cancelCommand() async throws {
            try await withSandbox { sandbox in
                let server = try SilentServer()
                let daemon = try await sandbox.startDaemon(["--allowed-host", "127.0.0.1", "--flush-interval", "0.2"])
                try await enqueueStuckFetch(sandbox, id: "stuck", server: server)
                try await sandbox.poll("the fetch to run", daemon: daemon) { try sandbox.jobFiles("active").count == 1 }

                let started = ContinuousClock.now
                let cancelled = try await sandbox.lineup(["cancel", "stuck", "--spool", "spool"])
                #expect(cancelled.termination == .exited(0), "\(cancelled.standardError)")
                #expect(cancelled.standardOutput.contains("stuck: running; its daemon is asked to stop it"), "\(cancelled.standardOutput)")
                #expect(cancelled.standardOutput.contains("cancelled by an operator"), "\(cancelled.standardOutput)")
                #expect(ContinuousClock.now - started < .seconds(30), "it did not wait for the fetch's own deadline")
                let failed = try sandbox.jobFiles("failed")
                try #require(failed.count == 1)
                let report = try sandbox.failureReport(forJobFile: failed[0])
                #expect(report.attempts == 1 && !report.retryable, "\(report)")
                #expect(try sandbox.fileNames("cancel").isEmpty, "the request was removed")

                // Nothing left to cancel: a clear error, a non-zero exit.
                let again = try await sandbox.lineup(["cancel", "stuck", "--spool", "spool"])
                #expect(again.termination == .exited(1), "\(again.termination)")
                #expect(again.standardError.contains("no queued job stuck, and none running"), "\(again.standardError)")
                #expect(daemon.isRunning)
            }
        }

        @Test("the dashboard's cancel needs the token and stops a running job")
        func dashboardCancel() async throws {
            try await withSandbox { sandbox in
                let server = try SilentServer()
                let (daemon, base) = try await startDaemonWithDashboard(sandbox)
                try await enqueueStuckFetch(sandbox, id: "hung", server: server)
                try await sandbox.poll("the fetch to run", daemon: daemon) { try sandbox.jobFiles("active").count == 1 }

                let cancel = base.appending(path: "api/jobs/hung/cancel")
                let anonymous = try await HTTP.request(cancel, method: "POST")
                #expect(anonymous.status == 401)
                let accepted = try await HTTP.request(cancel, method: "POST", headers: ["Authorization": "Bearer \(DashboardTests.token)"])
                #expect(accepted.status == 200, "\(accepted.body)")
                #expect(accepted.body.contains(#""outcome":"stopping""#), "\(accepted.body)")
                try await sandbox.poll("the job to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
                let report = try sandbox.failureReport(forJobFile: try sandbox.jobFiles("failed")[0])
                #expect(report.reason.contains("cancelled by an operator"), "\(report.reason)")
                let gone = try await HTTP.request(cancel, method: "POST", headers: ["Authorization": "Bearer \(DashboardTests.token)"])
                #expect(gone.status == 404, "\(gone.body)")
            }
        }

        @Test("the job browser's bulk cancel stops the running jobs it selects, as well as the queued ones")
        func bulkCancelOfRunningJobs() async throws {
            try await withSandbox { sandbox in
                let server = try SilentServer()
                let (daemon, base) = try await startDaemonWithDashboard(sandbox)
                try await enqueueStuckFetch(sandbox, id: "hung", server: server)
                let later = try await sandbox.lineup(["enqueue", "fetch-buoy", "url=\(server.url)", "--id", "later", "--in", "1h", "--spool", "spool"])
                try #require(later.termination == .exited(0), "\(later.standardError)")
                try await sandbox.poll("the fetch to run", daemon: daemon) { try sandbox.jobFiles("active").count == 1 }

                let bulk = base.appending(path: "api/jobs/bulk")
                let answer = try await HTTP.request(
                    bulk, method: "POST", headers: ["Authorization": "Bearer \(DashboardTests.token)"],
                    body: Data(#"{"action": "cancel", "kind": "fetch-buoy"}"#.utf8))
                #expect(answer.status == 200, "\(answer.body)")
                let outcome = try DashboardTests.object(answer.body)
                #expect(outcome["acted"] as? Int == 2 && outcome["skipped"] as? Int == 0, "\(outcome)")
                try await sandbox.poll("both jobs to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 2 }
                for jobFile in try sandbox.jobFiles("failed") {
                    let report = try sandbox.failureReport(forJobFile: jobFile)
                    #expect(report.reason.contains("cancelled by an operator") && !report.retryable, "\(report)")
                }
                #expect(try sandbox.jobFiles("active").isEmpty && sandbox.jobFiles("new").isEmpty)
                #expect(daemon.isRunning)
            }
        }
    }
}
