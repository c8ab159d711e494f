import ArgumentParser
import Foundation
import LineupSpool

/// `lineup cancel ID...`: takes queued jobs out of `new/` into `failed/` with the reason
/// "cancelled". A job a daemon has claimed already runs on: it is not queued any more.
struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Take queued jobs out of the queue (into failed/, reason \"cancelled\").")

    @Argument(help: "The queued jobs: a job's id field or the name it was enqueued under.")
    var ids: [String]
    @Option(help: "The spool directory.")
    var spool: String = "spool"

    func run() throws {
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        for id in ids {
            let found = try directory.entries(.queued, matching: id)
            guard !found.isEmpty else {
                throw ValidationError("no queued job \(id) in \(directory.directory(.queued).path) (running, finished, or unknown)")
            }
            for entry in found {
                let failed = try directory.cancel(entry)
                print("\(entry.name): cancelled, now failed/\(failed.fileName)")
            }
        }
    }
}
