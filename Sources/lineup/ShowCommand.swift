import ArgumentParser
import Foundation
import LineupSpool

/// `lineup show ID`: where a job is, its file, its attempts and its report.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a job: where it is, its file, its attempts and its report.")

    @Argument(help: "A job's id field or the name it was enqueued under.")
    var id: String
    @Option(help: "The spool directory.")
    var spool: String = "spool"

    func run() throws {
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
                default:
                    break
                }
            }
        }
        guard shown > 0 else { throw ValidationError("no job \(id) in \(directory.root.path)") }
    }
}
