import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// `lineup show ID`: where a job is, its file, its attempts and its report; for a job with an
/// `after` list (a batch's callback), how each job it waits for was settled, with its report.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a job: where it is, its file, its attempts, its report, and the reports of the jobs it waits for.")

    @Argument(help: "A job's id field or the name it was enqueued under.")
    var id: String
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Show the job from this PostgreSQL database (lineupd --database) instead of a spool.")
    var database: String?

    func run() throws {
        if let database {
            try show(in: database)
            return
        }
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        var shown = 0
        for state in JobState.allCases {
            for entry in try directory.entries(state, matching: id) {
                if shown > 0 { print() }
                shown += 1
                print("\(entry.name): \(state.directoryName)/\(entry.fileName)")
                print("failed attempts \(entry.failedAttempts), interruptions \(entry.interruptions)")
                let contents = try? Data(contentsOf: entry.url)
                Self.printJobFile(contents, path: entry.path) { directory.settledReports(ofJobIDs: $0) }
                switch state {
                case .done:
                    if let report = try? directory.resultReport(for: entry) {
                        let details = (try? report.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                        print("done \(report.finishedAt.ISO8601Format()) after \(report.attempts) attempts; report: \(details)")
                    }
                case .failed:
                    if let report = try? directory.failureReport(for: entry) {
                        print("failed \(report.finishedAt.ISO8601Format()) after \(report.attempts) attempts: \(report.reason)")
                    }
                case .running:
                    if directory.hasCancellationRequest(ofJob: id) {
                        print("cancellation requested; its daemon has not acted on it yet")
                    }
                default:
                    break
                }
            }
        }
        guard shown > 0 else { throw CommandFailure("no job \(id) in \(directory.root.path)") }
    }

    /// The same for a database's jobs table: one paragraph a row.
    private func show(in url: String) throws {
        let jobs = try JobDatabase(url: try DatabaseOption.url(url), logger: DatabaseOption.logger)
        defer { jobs.close() }
        let found = try jobs.jobs(matching: id)
        guard !found.isEmpty else { throw CommandFailure("no job \(id) in \(jobs.location)") }
        for (index, job) in found.enumerated() {
            if index > 0 { print() }
            print("\(job.name): \(job.state)\(job.claimedBy.map { " on \($0)" } ?? "")")
            print("failed attempts \(job.failedAttempts), interruptions \(job.interruptions)")
            try Self.printJobFile(job.contents, path: job.name) { try jobs.settledReports(ofJobIDs: $0) }
            if job.cancellationRequested {
                print("cancellation requested; its daemon has not acted on it yet")
            }
            switch job.state {
            case .done:
                print("done \(job.finishedAt?.ISO8601Format() ?? "?"); report: \(job.report ?? "none")")
            case .failed:
                print("failed \(job.finishedAt?.ISO8601Format() ?? "?"): \(job.reason ?? "?")")
            default:
                break
            }
        }
    }

    /// Prints the job file, and for each job in its `after` list how it was settled, with its
    /// report: what the job reads with `dependencyReports()` once it runs.
    private static func printJobFile(
        _ contents: Data?, path: String, settledReports: ([String]) throws -> [String: DependencyReport]
    ) rethrows {
        guard let contents else {
            print("job file: (unreadable)")
            return
        }
        print("job file: \(String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        guard let job = try? JobFile(data: contents, path: path), !job.after.isEmpty else { return }
        let reports = try settledReports(job.after)
        print("after (\(job.afterSettled ? "runs once all have settled" : "runs once all are done")):")
        for id in job.after {
            switch reports[id] {
            case let .done(report)?:
                let details = (try? report.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                print("  \(id): done \(report.finishedAt.ISO8601Format()); report: \(details)")
            case let .failed(report)?:
                print("  \(id): failed \(report.finishedAt.ISO8601Format()): \(report.reason)")
            case nil:
                print("  \(id): not settled")
            }
        }
    }
}
