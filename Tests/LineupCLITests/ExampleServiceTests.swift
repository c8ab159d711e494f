import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `Examples/SurfSessions`: a service of a user's own records a session over HTTP and, in the
    /// same save, enqueues its statistics job, which its own daemon runs.
    @Suite("The example service")
    struct ExampleServiceTests {
        @Test("a session posted over HTTP is stored, and the statistics job enqueued with it runs; a refused post enqueues nothing")
        func postedSessionGetsItsStatistics() async throws {
            try await withSandbox { sandbox in
                let directory = sandbox.root.appending(path: "service")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let service = try sandbox.launch(Binaries.surfSessions, ["0"], in: directory, logName: "surf-sessions")
                var address: String?
                try await sandbox.poll("the service to listen", timeout: .seconds(60), daemon: service) {
                    let line = service.standardError.split(separator: "\n").last { $0.contains("HTTP endpoint listening") }
                    address = line.flatMap { $0.split(separator: " ").first { $0.hasPrefix("address=") } }.map { String($0.dropFirst(8)) }
                    // The daemon opens its store after the server listens (503 until then).
                    return address != nil && service.standardError.contains(Sandbox.startedLine)
                }
                let found = try #require(address)
                let base = try #require(URL(string: "http://\(found)"))

                // Refused: nothing stored, so nothing enqueued.
                let refused = try await HTTP.request(
                    base.appending(path: "sessions"), method: "POST", headers: ["Content-Type": "application/json"],
                    body: Data(#"{"date":"yesterday","location":"Ocean Beach","rating":4}"#.utf8))
                #expect(refused.status == 400, "\(refused.body)")

                let posted = try await HTTP.request(
                    base.appending(path: "sessions"), method: "POST", headers: ["Content-Type": "application/json"],
                    body: Data(#"{"date":"2026-11-20T07:30:00Z","location":"Ocean Beach","rating":4,"height":"4-5"}"#.utf8))
                #expect(posted.status == 201, "\(posted.body)")

                try await sandbox.poll("the statistics job to write its output", timeout: .seconds(60), daemon: service) {
                    let done = (try? FileManager.default.contentsOfDirectory(atPath: directory.appending(path: "spool/done").path)) ?? []
                    return done.contains { $0.hasSuffix(".job.json") }
                }
                let answer = try await HTTP.request(base.appending(path: "statistics"))
                #expect(answer.status == 200)
                struct Statistics: Decodable {
                    struct Location: Decodable, Equatable { let location: String; let sessions: Int; let meanRating: Double? }
                    let locations: [Location]
                }
                let statistics = try JSONDecoder().decode(Statistics.self, from: Data(answer.body.utf8))
                #expect(statistics.locations == [.init(location: "Ocean Beach", sessions: 1, meanRating: 4)], "\(answer.body)")

                service.send(SIGTERM)
                #expect(try await service.waitForExit(timeout: .seconds(60)) == .exited(0))
                // One post stored, one job enqueued with it, and it is done: nothing left behind.
                let done = try FileManager.default.contentsOfDirectory(atPath: directory.appending(path: "spool/done").path)
                #expect(done.filter { $0.hasSuffix(".job.json") }.count == 1, "\(done)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending(path: "spool/failed").path).isEmpty)
            }
        }
    }
}
