import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--database` URLs as libpq reads them, through the built `lineup`: several hosts each with its
/// port (a URL that Foundation's `URL(string:)` refuses), and no password in what it prints.
@Suite("--database URLs as libpq reads them", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
struct DatabaseURLTests {
    /// The first host is down: the jobs go into the second's database, and the location printed
    /// is the URL with the hosts moved into its query.
    @Test func severalHostsWithTheirPortsTheFirstDown() async throws {
        let server = try PostgresTestServer.shared()
        let database = try server.createDatabase()
        defer { try? server.dropDatabase(database) }
        let down = try Self.unusedPort()
        let url = "postgresql://\(server.username)@127.0.0.1:\(down),127.0.0.1:\(server.port)/\(database)"
            + "?target_session_attrs=read-write&sslmode=disable"
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup(["enqueue", "no-such-kind", "--id", "one", "--database", url])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            let location = "postgresql://\(server.username)@/\(database)?host=127.0.0.1,127.0.0.1&port=\(down),\(server.port)"
                + "&target_session_attrs=read-write&sslmode=disable"
            #expect(result.standardOutput == "1 job(s) inserted into \(location)\n", "\(result.standardOutput)")
        }
        #expect(try server.psql("SELECT count(*) FROM lineup_jobs", database: database) == "1")
    }

    @Test func whatItPrintsHoldsNoPassword() async throws {
        let down = try Self.unusedPort()
        try await withSandbox { sandbox in
            for url in [
                "postgresql://lineup:hunter2@127.0.0.1:\(down)/surf", "postgresql://lineup:hunter2@h1:1,h2:2/surf?sslmode=sometimes",
                "postgresql://lineup@127.0.0.1:\(down)/surf?password=hunter2", "postgresql://lineup:hunter2@[::1/surf",
            ] {
                let result = try await sandbox.lineup(["status", "--database", url])
                #expect(result.termination != .exited(0), "\(url)")
                #expect(!result.standardError.isEmpty, "\(url)")
                #expect(!(result.standardOutput + result.standardError).contains("hunter2"), "\(result.standardError)")
            }
        }
    }

    /// A port of 127.0.0.1 that nothing listens on (one the kernel just handed out and took back).
    static func unusedPort() throws -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
