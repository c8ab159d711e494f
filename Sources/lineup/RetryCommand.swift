import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup retry ID...|--all`: moves failed jobs back to `new/`, each with a fresh attempt
/// count. Each move is one rename: a job retried twice at once is queued once.
struct RetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue failed jobs again, with a fresh attempt count.",
        discussion: "An ID is a job's id field or the name it was enqueued under (lineup failed lists them).")

    @Argument(help: "The failed jobs to retry.")
    var ids: [String] = []
    @Flag(help: "Retry every failed job.")
    var all = false
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Retry the failed jobs of this PostgreSQL database (lineupd --database) instead of a spool's.")
    var database: String?

    func validate() throws {
        guard all != !ids.isEmpty else {
            throw ValidationError(all ? "give IDs or --all, not both" : "give the IDs of failed jobs, or --all")
        }
    }

    func run() throws {
        if let database {
            let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
            defer { jobs.close() }
            let names = try jobs.retryFailed(all ? nil : ids)
            guard all || !names.isEmpty else { throw CommandFailure("no failed job \(ids.joined(separator: ", ")) in \(jobs.location)") }
            for name in names { print("\(name): queued again in \(jobs.location)") }
            return
        }
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        let targets = try all ? directory.entries(.failed) : ids.flatMap { id in
            let found = try directory.entries(.failed, matching: id)
            guard !found.isEmpty else { throw CommandFailure("no failed job \(id) in \(directory.directory(.failed).path)") }
            return found
        }
        for entry in targets {
            let queued = try directory.retry(entry)
            print("\(entry.name): queued again as new/\(queued.fileName)")
        }
    }
}
