// A daemon of your own: one entity, one job kind, the daemon. Run it in a directory, then
// `lineup enqueue add-note text=hello --spool spool` (see the JobsDaemon article of LineupJobs).
import Foundation
import LineupJobs
import LineupStore
import Logging

final class Note: ManagedObject {
    @Attribute("text") var text: String?
}

struct AddNote: Decodable, Sendable { let text: String }

final class AddNoteTask: JobTask, @unchecked Sendable {
    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        Note(context: context).text = try request.parameters(as: AddNote.self).text
        return JobOutcome(summary: "noted")
    }
}

@main enum NoteDaemon {
    static func main() async throws {
        var registry = JobRegistry()
        registry.register("add-note") { AddNoteTask(request: $0) }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let configuration = DaemonConfiguration(
            storeURL: here.appending(path: "notes.sqlite"), spoolURL: here.appending(path: "spool"), inputDirectory: here,
            outputDirectory: here)
        let daemon = JobDaemon(configuration: configuration, registry: registry, model: ManagedObjectModel(Note.self), logger: Logger(label: "notes"))
        try await daemon.runWithSignalHandling()
    }
}
