import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// `lineup enqueue`, `status`, `failed`, `retry`, `cancel`, `show` and `prune` with
    /// `--database`, on the jobs of a `lineupd --database`.
    @Suite("lineup commands on a database", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct DatabaseCommandsTests {
        @Test func enqueueStatusFailedAndRetryActOnTheTable() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                // Jobs of a kind no daemon knows: they fail, and can be retried.
                var result = try await sandbox.lineup(["enqueue", "no-such-kind", "--id", "lonely", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.contains("1 job(s) inserted"))
                let bulk = sandbox.root.appending(path: "two.jsonl")
                try Data(#"{"kind": "no-such-kind", "id": "first"}\#n\#n{"kind": "no-such-kind", "id": "second"}\#n"#.utf8).write(to: bulk)
                result = try await sandbox.lineup(["enqueue", "--from", bulk.path, "--database", url])
                #expect(result.standardOutput.contains("2 job(s) inserted"), "\(result.standardError)")
                result = try await sandbox.lineup(["status", "--database", url, "--json"])
                #expect(result.standardOutput.contains(#""counts":{"done":0,"failed":0,"queued":3,"running":0}"#), "\(result.standardOutput) \(result.standardError) \(result.termination)")

                let daemon = try await sandbox.startDaemon(["--database", url])
                try await sandbox.poll("the three jobs to fail", timeout: .seconds(60), daemon: daemon) {
                    try server.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'failed'", database: database) == "3"
                }
                result = try await sandbox.lineup(["status", "--database", url])
                #expect(result.standardOutput.hasPrefix("queued 0, running 0, done 0, failed 3\ndaemons:\n"), "\(result.standardOutput)")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                result = try await sandbox.lineup(["failed", "--database", url])
                let lines = result.standardOutput.split(separator: "\n")
                #expect(lines.count == 4 && lines.last == "3 failed jobs", "\(result.standardOutput)")
                #expect(lines.dropLast().allSatisfy { $0.contains("no-such-kind") && $0.contains("unknown kind: no task is registered") }, "\(result.standardOutput)")
                #expect(lines.contains { $0.hasPrefix("two.line3  id second, ") }, "\(result.standardOutput)")

                result = try await sandbox.lineup(["retry", "lonely", "--database", url])
                #expect(result.standardOutput.hasPrefix("lonely: queued again"), "\(result.standardOutput)")
                result = try await sandbox.lineup(["retry", "nobody", "--database", url])
                // Not a wrong call: the error alone, exit 1, no usage.
                #expect(result.termination == .exited(1), "\(result.termination)")
                #expect(result.standardError.contains("no failed job nobody"))
                result = try await sandbox.lineup(["status", "--database", url])
                #expect(result.standardOutput.hasPrefix("queued 1, running 0, done 0, failed 2\ndaemons: none holds a lease\n"), "\(result.standardOutput)")
            }
        }

        @Test func cancelShowAndPruneActOnTheTable() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                var result = try await sandbox.lineup(["enqueue", "no-such-kind", "--id", "queued-one", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                result = try await sandbox.lineup(["show", "queued-one", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.contains(": queued"), "\(result.standardOutput)")
                #expect(result.standardOutput.contains(#""id":"queued-one""#), "\(result.standardOutput)")

                // No daemon runs: a queued job fails at once, in the table.
                result = try await sandbox.lineup(["cancel", "queued-one", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.contains("cancelled, now failed in"), "\(result.standardOutput)")
                result = try await sandbox.lineup(["show", "queued-one", "--database", url])
                #expect(result.standardOutput.contains(": failed") && result.standardOutput.contains(": cancelled"), "\(result.standardOutput)")
                result = try await sandbox.lineup(["cancel", "queued-one", "--database", url])
                #expect(result.termination == .exited(1), "\(result.termination)")
                #expect(result.standardError.contains("no queued job queued-one, and none running"), "\(result.standardError)")
                result = try await sandbox.lineup(["show", "nobody", "--database", url])
                #expect(result.termination == .exited(1) && result.standardError.contains("no job nobody"), "\(result.standardError)")

                // Prune: a done job a day old goes, a fresh one stays.
                for id in ["old", "fresh"] {
                    result = try await sandbox.lineup(["enqueue", "no-such-kind", "--id", id, "--database", url])
                    #expect(result.termination == .exited(0))
                }
                _ = try server.psql(
                    """
                    UPDATE lineup_jobs SET state = 'done', finished_at = now() - CASE job_id WHEN 'old' THEN interval '1 day' ELSE interval '1 minute' END
                    WHERE job_id IN ('old', 'fresh')
                    """, database: database)
                result = try await sandbox.lineup(["prune", "--older-than", "12h", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.hasPrefix("removed 1 done jobs"), "\(result.standardOutput)")
                #expect(try server.psql("SELECT string_agg(job_id, ',' ORDER BY job_id) FROM lineup_jobs WHERE state = 'done'", database: database) == "fresh")
            }
        }
    }
}
