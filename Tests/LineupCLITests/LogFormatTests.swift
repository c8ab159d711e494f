import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Log format")
    struct LogFormatTests {
        @Test("lineupd --log-format json writes every line as a JSON object, a job's lines with its id, kind and attempt")
        func jsonLines() async throws {
            try await withSandbox { sandbox in
                let sample = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
                let daemon = try await sandbox.startDaemon(["--log-format", "json", "--flush-interval", "0.2"])
                try await sandbox.enqueueImport(id: "rss", input: sample.lastPathComponent)
                try await sandbox.poll("the job to be acknowledged", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let lines = sandbox.daemonLog.split(separator: "\n").filter { !$0.isEmpty }
                #expect(lines.count >= 4)
                var objects: [[String: Any]] = []
                for line in lines {
                    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    let parsed = try #require(object, "not a JSON object: \(line)")
                    for key in ["time", "level", "label", "message"] {
                        #expect(parsed[key] is String, "no \(key) in \(line)")
                    }
                    objects.append(parsed)
                }
                #expect(objects.contains { $0["message"] as? String == "job acknowledged" && $0["job"] as? String == "rss" })
                #expect(objects.contains { $0["job"] as? String == "rss" && $0["kind"] as? String == "import-buoy" && $0["attempt"] as? String == "1" })
            }
        }
    }
}
