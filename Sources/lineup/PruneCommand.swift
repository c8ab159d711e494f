import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup prune --older-than 7d`: removes done jobs (and their reports) that finished longer
/// ago, as `lineupd --keep-done` does on its own; a done job that a queued or running job waits
/// for is kept.
struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Remove done jobs older than a duration (jobs others wait for are kept).")

    @Option(help: "How old a done job must be to go: 90s, 10m, 12h, 7d.")
    var olderThan: String
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Prune the done jobs of this PostgreSQL database (lineupd --database) instead of a spool's.")
    var database: String?

    func run() throws {
        let age = try DaemonConfiguration.duration(text: olderThan, of: "--older-than")
        let cutoff = Date().addingTimeInterval(-Double(age.components.seconds))
        if let database {
            let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
            defer { jobs.close() }
            print("removed \(try jobs.pruneDone(finishedBefore: cutoff)) done jobs from \(jobs.location); kept those that queued or running jobs wait for")
            return
        }
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        let pruning = try directory.pruneDone(finishedBefore: cutoff)
        print("removed \(pruning.removed.count) done jobs; kept \(pruning.keptForDependents.count) that queued or running jobs wait for")
    }
}
