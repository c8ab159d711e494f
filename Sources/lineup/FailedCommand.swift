import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup failed`: the jobs in `failed/`, oldest name first, each with its reason.
struct FailedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failed", abstract: "List the failed jobs with their reasons.",
        discussion: "lineup retry ID (or --all) queues them again; lineup show ID prints one whole.")

    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "List the failed jobs of this PostgreSQL database (lineupd --database) instead of a spool's.")
    var database: String?

    func run() throws {
        if let database {
            let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
            defer { jobs.close() }
            let failed = try jobs.failures().reversed()
            for failure in failed {
                print(
                    Self.line(
                        name: failure.name, id: failure.id, kind: failure.kind, attempts: failure.attempts,
                        finishedAt: failure.finishedAt, reason: failure.reason))
            }
            print(failed.count == 1 ? "1 failed job" : "\(failed.count) failed jobs")
            return
        }
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        let failed = try directory.entries(.failed)
        for entry in failed {
            guard let report = try? directory.failureReport(for: entry) else {
                print("\(entry.name)  (no report)  \(entry.fileName)")
                continue
            }
            print(
                Self.line(
                    name: entry.name, id: report.id, kind: report.kind, attempts: report.attempts, finishedAt: report.finishedAt,
                    reason: report.reason))
        }
        print(failed.count == 1 ? "1 failed job" : "\(failed.count) failed jobs")
    }

    /// One failed job as the command lists it, from a spool or a database alike.
    private static func line(name: String, id: String?, kind: String?, attempts: Int, finishedAt: Date, reason: String) -> String {
        let id = id.map { "id \($0), " } ?? ""
        let attempts = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        return "\(name)  \(id)\(kind ?? "unknown kind"), \(attempts), failed \(finishedAt.ISO8601Format()): \(reason)"
    }
}
