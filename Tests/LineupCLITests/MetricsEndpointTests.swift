import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineupd --http-address`: the real endpoint over loopback, scraped as Prometheus would.
    @Suite("HTTP endpoint")
    struct MetricsEndpointTests {
        @Test("/metrics counts jobs by kind and /health answers, in the Prometheus text format promtool accepts")
        func scrapeMetricsAndHealth() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--http-address", "127.0.0.1:0", "--flush-interval", "0.2"])
                let base = try await sandbox.httpEndpoint(of: daemon)

                let health = try await get(base.appending(path: "health"))
                #expect(health.status == 200)
                #expect(health.body == #"{"status":"ok"}"# + "\n")

                try await sandbox.enqueueImport(id: "sos", input: sample.lastPathComponent)
                try await sandbox.enqueueImport(id: "missing", input: "no-such-file.xml")
                let later = try await sandbox.lineup(["enqueue", "statistics", "--in", "1h", "--spool", "spool"])
                #expect(later.termination == .exited(0), "\(later.standardError)")
                try await sandbox.poll("one job done and one failed", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1 && sandbox.jobFiles("failed").count == 1
                }

                let metrics = try await get(base.appending(path: "metrics"))
                #expect(metrics.status == 200)
                #expect(metrics.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
                let values = Self.samples(in: metrics.body)
                #expect(values[#"lineup_jobs_claimed_total{kind="import-buoy"}"#] == 2, "\(metrics.body)")
                #expect(values[#"lineup_jobs_succeeded_total{kind="import-buoy"}"#] == 1)
                #expect(values[#"lineup_jobs_failed_total{kind="import-buoy"}"#] == 1)
                #expect(values[#"lineup_job_duration_seconds_count{kind="import-buoy"}"#] == 1)
                #expect((values["lineup_flush_duration_seconds_count"] ?? 0) >= 1)
                // The scheduled job waits in new/, not due: in the depth, not in the age.
                #expect(values["lineup_queue_depth"] == 1)
                #expect(values["lineup_oldest_queued_job_age_seconds"] == 0)
                #expect(values["lineup_jobs_running"] == 0)
                #expect(values["lineup_main_context_unsaved_rows"] == 0)
                #expect(values["lineup_up"] == 1)
                #expect(metrics.body.contains("# HELP lineup_jobs_claimed_total "))

                if let promtool = Self.promtool {
                    let scrape = sandbox.root.appending(path: "scrape.prom")
                    try Data(metrics.body.utf8).write(to: scrape)
                    let check = try await sandbox.run(
                        URL(fileURLWithPath: "/bin/sh"), ["-c", #""$0" check metrics < "$1""#, promtool.path, scrape.path])
                    #expect(check.termination == .exited(0), "promtool: \(check.standardOutput) \(check.standardError)")
                }

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("a port that is taken stops lineupd with status 69 (EX_UNAVAILABLE), naming the address")
        func portInUse() async throws {
            let listener = try TakenPort()
            defer { listener.close() }
            try await withSandbox { sandbox in
                let address = "127.0.0.1:\(listener.port)"
                let result = try await sandbox.run(Binaries.lineupd, sandbox.daemonLocationArguments + ["--http-address", address])
                #expect(result.termination == .exited(69), "\(result.standardError)")
                #expect(result.standardError.contains("the HTTP endpoint at \(address) failed"), "\(result.standardError)")
            }
        }

        private func get(_ url: URL) async throws -> (status: Int, contentType: String?, body: String) {
            let (data, response) = try await URLSession.shared.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            return (http.statusCode, http.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self))
        }

        /// The samples of a Prometheus text exposition: series (name and labels) to value.
        static func samples(in text: String) -> [String: Double] {
            var values: [String: Double] = [:]
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                values[String(line[..<space])] = value
            }
            return values
        }

        static let promtool: URL? = ["/usr/bin/promtool", "/usr/local/bin/promtool"].lazy
            .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// A loopback TCP port held by a listening socket of the test's own.
private struct TakenPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw HarnessError("cannot listen on a loopback port: errno \(errno)") }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
