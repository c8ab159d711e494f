// The notes' model and job kind: what the daemon runs, and what the tests beside it test
// (Examples/NoteDaemonTests, with LineupTesting).
import LineupJobs
import LineupStore

final class Note: ManagedObject {
    @Attribute("text") var text: String?
}

struct AddNote: Codable, Sendable { let text: String }

final class AddNoteTask: JobTask, @unchecked Sendable {
    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let text = try request.parameters(as: AddNote.self).text
        guard !text.isEmpty else { throw JobError(.invalidParameters, "a note needs some text", isRetryable: false) }
        Note(context: context).text = text
        return JobOutcome(summary: "noted")
    }
}

enum Notes {
    static let model = ManagedObjectModel(Note.self)

    static var registry: JobRegistry {
        var registry = JobRegistry()
        registry.register("add-note") { AddNoteTask(request: $0) }
        return registry
    }
}
