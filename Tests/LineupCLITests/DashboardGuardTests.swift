import Foundation
import Testing

extension DaemonTests.DashboardTests {
    /// The paths of the actions, an impossible job id among them (its handler would answer 400).
    static let actionPaths = ["api/jobs/nobody/retry", "api/jobs/nobody/discard", "api/flush", "api/jobs/a%2Fb/retry"]
    /// The paths that read the spool or the output directory.
    static let readPaths = ["api/status", "api/failed", "api/jobs/nobody", "api/scheduled", "api/pictures", "pictures/none.svg"]

    static func url(_ base: URL, _ path: String) throws -> URL {
        try #require(URL(string: base.absoluteString + "/" + path))
    }

    @Test("the token middleware refuses every action before its handler runs, and before its body is read")
    func everyActionNeedsTheToken() async throws {
        try await withSandbox { sandbox in
            let (daemon, base) = try await startDaemon(sandbox)
            for path in Self.actionPaths {
                let url = try Self.url(base, path)
                let anonymous = try await HTTP.request(url, method: "POST")
                #expect(anonymous.status == 401, "\(path): \(anonymous.body)")
                #expect(anonymous.header("WWW-Authenticate") == #"Bearer realm="lineupd""#, "\(path)")
                #expect(anonymous.body.contains("this needs the token of --http-token-file"), "\(path): \(anonymous.body)")
                let basic = try await HTTP.request(url, method: "POST", headers: ["Authorization": "Basic \(Self.token)"])
                #expect(basic.status == 401 && basic.header("WWW-Authenticate") != nil, "\(path): \(basic.body)")
                let wrong = try await HTTP.request(url, method: "POST", headers: ["Authorization": "Bearer not-the-token-at-all"])
                #expect(wrong.status == 403 && wrong.body.contains("wrong token"), "\(path): \(wrong.body)")
                // A URL reaches logs and histories: an action never takes the token from it.
                let query = try await HTTP.request(try Self.url(base, path + "?token=\(Self.token)"), method: "POST")
                #expect(query.status == 401, "\(path): \(query.body)")
                let huge = try await HTTP.request(url, method: "POST", body: Data(repeating: 0x41, count: 64 * 1024))
                #expect(huge.status == 401, "\(path): refused before its body is read, not 413")
            }
            // Past the middleware, the handlers answer as before.
            #expect(try await HTTP.request(try Self.url(base, "api/jobs/nobody/retry"), method: "POST", headers: bearer).status == 404)
            #expect(try await HTTP.request(try Self.url(base, "api/jobs/a%2Fb/retry"), method: "POST", headers: bearer).status == 400)
            #expect(daemon.isRunning)
        }
    }

    @Test("without a token file every action is off (403), whatever it is given")
    func everyActionOffWithoutAToken() async throws {
        try await withSandbox { sandbox in
            let (_, base) = try await startDaemon(sandbox, withToken: false)
            for path in Self.actionPaths {
                for headers in [[:], bearer] {
                    let answer = try await HTTP.request(try Self.url(base, path), method: "POST", headers: headers)
                    #expect(answer.status == 403 && answer.body.contains("--http-token-file"), "\(path): \(answer.body)")
                }
            }
        }
    }

    @Test("bound beyond loopback, the middleware guards every read; ?token= opens each; the page and a wrong method need none")
    func everyReadGuardedBeyondLoopback() async throws {
        try await withSandbox { sandbox in
            let (_, base) = try await startDaemon(sandbox, address: "0.0.0.0:0")
            for path in Self.readPaths {
                let anonymous = try await HTTP.request(try Self.url(base, path))
                #expect(anonymous.status == 401 && anonymous.header("WWW-Authenticate") != nil, "\(path): \(anonymous.body)")
                let wrong = try await HTTP.request(try Self.url(base, path), headers: ["Authorization": "Bearer wrong"])
                #expect(wrong.status == 403, "\(path): \(wrong.body)")
                let query = try await HTTP.request(try Self.url(base, path + "?token=\(Self.token)"))
                #expect([200, 404].contains(query.status), "\(path): \(query.status) \(query.body)")
            }
            let stream = try EventStreamReader(port: try #require(base.port), path: "/api/events")
            try await stream.read(until: "the answer") { $0.contains("\r\n\r\n") }
            #expect(stream.text.hasPrefix("HTTP/1.1 401"), "\(stream.text)")
            #expect(try await HTTP.request(base).status == 200)
            #expect(try await HTTP.request(try Self.url(base, "dashboard.js")).status == 200)
            let post = try await HTTP.request(try Self.url(base, "api/status"), method: "POST")
            #expect(post.status == 405 && post.header("Allow") == "GET")
        }
    }

    @Test("a GET makes no directory: the spool is opened once, when the endpoint starts")
    func getsMakeNoDirectory() async throws {
        try await withSandbox { sandbox in
            let (daemon, base) = try await startDaemon(sandbox)
            let removed = ["done", "failed"].map { sandbox.spool.appending(path: $0) }
            for directory in removed {
                try FileManager.default.removeItem(at: directory)
            }
            for path in Self.readPaths + ["metrics"] {
                _ = try await HTTP.request(try Self.url(base, path))
            }
            let stream = try EventStreamReader(port: try #require(base.port), path: "/api/events")
            try await stream.read(until: "the answer") { $0.contains("\r\n\r\n") }
            #expect(stream.text.hasPrefix("HTTP/1.1 200"), "\(stream.text)")
            // A tick and a half of the stream's status, which cannot be read without them.
            try await Task.sleep(for: .milliseconds(1_500))
            for directory in removed {
                #expect(!FileManager.default.fileExists(atPath: directory.path), "\(directory.lastPathComponent)/ was made again")
            }
            #expect(daemon.isRunning)
        }
    }

    @Test("the status the dashboard shows is the daemon's own, not what status.json says")
    func statusFromTheDaemon() async throws {
        try await withSandbox { sandbox in
            // Neither interval passes during the test: the daemon leaves status.json as it is.
            let config = sandbox.root.appending(path: "lineupd.json")
            try Data(#"{"statusInterval": 3600}"#.utf8).write(to: config)
            let daemon = try await sandbox.startDaemon(["--config", config.path, "--http-address", "127.0.0.1:0", "--flush-interval", "3600"])
            let base = try await sandbox.httpEndpoint(of: daemon)
            let statusFile = sandbox.spool.appending(path: "status.json")
            try await sandbox.poll("status.json", daemon: daemon) { FileManager.default.fileExists(atPath: statusFile.path) }
            var written = try Self.object(String(decoding: try Data(contentsOf: statusFile), as: UTF8.self))
            written["pid"] = 999_999
            try JSONSerialization.data(withJSONObject: written, options: [.sortedKeys]).write(to: statusFile)

            let api = try await HTTP.request(try Self.url(base, "api/status"))
            let served = try #require(try Self.object(api.body)["daemon"] as? [String: Any])
            #expect(served["pid"] as? Int == Int(daemon.pid))
            #expect(served["phase"] as? String == "running")
            let stream = try EventStreamReader(port: try #require(base.port), path: "/api/events")
            try await stream.read(until: "a status event") { $0.contains("event: status") && $0.contains(#""pid":"#) }
            #expect(stream.text.contains(#""pid":\#(daemon.pid)"#), "\(stream.text)")
            #expect(!stream.text.contains("999999"))
        }
    }
}
