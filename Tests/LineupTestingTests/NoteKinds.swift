import Foundation
import LineupJobs
import LineupSpool
import LineupStore

/// The model and job kinds of the kit's tests: notes, as a user's app would have.
final class Note: ManagedObject {
    @Attribute("text") var text: String?
}

let noteModel = ManagedObjectModel(Note.self)

struct AddNote: Codable, Sendable {
    let text: String
    /// Enqueue a follow-up `add-note` with this text, through the spool client.
    var followUp: String? = nil
    /// Enqueue a follow-up `add-note` with this text with the data (`context.enqueue`), as
    /// "Enqueue With Your Data" teaches.
    var followUpWithTheData: String? = nil
    /// Fail the attempts before this one, retryably (after saving, and enqueueing with the data).
    var failsBeforeAttempt: Int? = nil
}

/// Inserts a note; optionally enqueues a follow-up job.
final class AddNoteTask: JobTask, @unchecked Sendable {
    let parameters: AddNote
    let client: JobClient?

    init(request: JobRequest, parameters: AddNote, client: JobClient?) {
        self.parameters = parameters
        self.client = client
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        Note(context: context).text = parameters.text
        if let followUp = parameters.followUp, let client {
            try client.enqueue("add-note", AddNote(text: followUp))
        }
        if let followUp = parameters.followUpWithTheData {
            try context.enqueue(JobFile(kind: "add-note", parameters: AddNote(text: followUp)))
        }
        if let attempt = parameters.failsBeforeAttempt, request.attempt < attempt {
            throw FlakyTask.Failure()
        }
        return JobOutcome(summary: "noted \(parameters.text)", counts: ["notes": 1])
    }
}

/// Fails its first `failures` attempts, then inserts a note.
final class FlakyTask: JobTask, @unchecked Sendable {
    struct Parameters: Codable, Sendable { let failures: Int }
    struct Failure: Error, RetryableError { var isRetryable: Bool { true } }

    let failures: Int

    init(request: JobRequest, failures: Int) {
        self.failures = failures
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        guard request.attempt > failures else { throw Failure() }
        Note(context: context).text = "flaky"
        return JobOutcome(summary: "made it on attempt \(request.attempt)")
    }
}

/// Inserts a note, says it is running, then awaits an hour: only a cancel ends it early.
final class AwaitForeverTask: AsyncJobTask, @unchecked Sendable {
    let running: AsyncStream<Void>.Continuation

    init(request: JobRequest, running: AsyncStream<Void>.Continuation) {
        self.running = running
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        try await context.perform { Note(context: context).text = "forever" }
        running.yield()
        try await Task.sleep(for: .seconds(3600))
        return JobOutcome(summary: "an hour later")
    }
}

/// The kinds, with the spool client that `add-note` enqueues follow-ups through, and the
/// stream that `await-forever` says it runs on.
func noteRegistry(client: @escaping @Sendable () -> JobClient? = { nil }, running: AsyncStream<Void>.Continuation? = nil)
    -> JobRegistry
{
    var registry = JobRegistry()
    registry.register("add-note", parameters: AddNote.self) { request, parameters in
        AddNoteTask(request: request, parameters: parameters, client: client())
    }
    registry.register("flaky", parameters: FlakyTask.Parameters.self) { request, parameters in
        FlakyTask(request: request, failures: parameters.failures)
    }
    registry.register("await-forever") { request in
        AwaitForeverTask(request: request, running: running ?? AsyncStream<Void>.makeStream().continuation)
    }
    return registry
}

/// Code under test: signs a user up, and enqueues their welcome note for an hour later.
func signUp(_ name: String, client: JobClient, now: Date) throws {
    try client.enqueue("add-note", AddNote(text: "welcome \(name)"), options: JobOptions(id: "welcome-\(name)", notBefore: now + 3600))
}
