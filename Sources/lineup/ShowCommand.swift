import ArgumentParser
import Foundation
import LineupPostgres
import LineupSpool

/// `lineup show ID`: where a job is, its file, its attempts and its report.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a job: where it is, its file, its attempts and its report.")

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
                let contents = (try? Data(contentsOf: entry.url)).map { String(decoding: $0, as: UTF8.self) } ?? "(unreadable)"
                print("job file: \(contents.trimmingCharacters(in: .whitespacesAndNewlines))")
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
        guard shown > 0 else { throw ValidationError("no job \(id) in \(directory.root.path)") }
    }

    /// The same for a database's jobs table: one paragraph a row.
    private func show(in url: String) throws {
        let jobs = try JobDatabase(url: try DatabaseOption.url(url), logger: DatabaseOption.logger)
        defer { jobs.close() }
        let found = try jobs.jobs(matching: id)
        guard !found.isEmpty else { throw ValidationError("no job \(id) in \(jobs.location)") }
        for (index, job) in found.enumerated() {
            if index > 0 { print() }
            print("\(job.name): \(job.state)\(job.claimedBy.map { " on \($0)" } ?? "")")
            print("failed attempts \(job.failedAttempts), interruptions \(job.interruptions)")
            print("job file: \(String(decoding: job.contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
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
}
