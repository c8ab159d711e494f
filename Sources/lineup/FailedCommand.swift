import ArgumentParser
import Foundation
import LineupJobs
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
                let id = failure.id.map { "id \($0), " } ?? ""
                let attempts = failure.attempts == 1 ? "1 attempt" : "\(failure.attempts) attempts"
                print("\(failure.name)  \(id)\(failure.kind ?? "unknown kind"), \(attempts), failed \(failure.finishedAt.ISO8601Format()): \(failure.reason)")
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
            let id = report.id.map { "id \($0), " } ?? ""
            let attempts = report.attempts == 1 ? "1 attempt" : "\(report.attempts) attempts"
            print("\(entry.name)  \(id)\(report.kind ?? "unknown kind"), \(attempts), failed \(report.finishedAt.ISO8601Format()): \(report.reason)")
        }
        print(failed.count == 1 ? "1 failed job" : "\(failed.count) failed jobs")
    }
}
