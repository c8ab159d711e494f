import ArgumentParser
import Foundation
import LineupSpool

/// `lineup enqueue KIND key=value...`: writes a job file into the spool atomically (into tmp/,
/// then renamed into new/).
struct EnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Write a job into the spool (atomically).",
        discussion: "Example: lineup enqueue import-buoy input=obs/42002.rss --spool spool")

    @Argument(help: "The job kind: import-buoy, export-csv, statistics, import-coredata or prune-observations.")
    var kind: String
    @Argument(help: "The kind's parameters as key=value (a value that is JSON, e.g. 3 or true, is taken as such).")
    var parameters: [String] = []
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "A job id that other jobs can name in --after.")
    var id: String?
    @Option(help: "A job id that must be done first (repeatable).")
    var after: [String] = []
    @Option(help: "Attempts before the job goes to failed/.")
    var maxAttempts: Int?

    func run() throws {
        var values: [String: JSONValue] = [:]
        for parameter in parameters {
            guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                throw ValidationError("parameter \"\(parameter)\" is not key=value")
            }
            let key = String(parameter[..<equals])
            let text = String(parameter[parameter.index(after: equals)...])
            values[key] = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
        }
        let job = try JobFile(kind: kind, id: id, after: after, maxAttempts: maxAttempts, parameters: values)
        let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
        let entry = try directory.enqueue(job)
        print(entry.url.path)
    }
}
