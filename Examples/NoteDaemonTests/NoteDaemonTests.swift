// The example's own tests, written with LineupTesting as a user of Lineup would write theirs.
import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import LineupTesting
import Testing

@testable import note_daemon

@Suite(.timeLimit(.minutes(2))) struct NoteDaemonTests {
    @Test func addNoteStoresItsText() async throws {
        try await withJobTester(model: Notes.model, registry: Notes.registry) { tester in
            let run = try await tester.run("add-note", AddNote(text: "hello"))
            #expect(run.outcome?.summary == "noted")
            let texts = try tester.container.mainContext.performAndWait {
                try tester.container.mainContext.fetch(FetchRequest<Note>()).map(\.text)
            }
            #expect(texts == ["hello"])
            #expect(try tester.container.rowCount(of: "Note") == 1)
        }
    }

    @Test func anEmptyNoteFailsForGoodWithoutARetry() async throws {
        try await withJobTester(model: Notes.model, registry: Notes.registry) { tester in
            try tester.client.enqueue("add-note", AddNote(text: ""), options: JobOptions(id: "empty"))
            let report = try await tester.drain()
            let failed = try #require(report.failed.first)
            #expect(failed.id == "empty" && failed.attempts == 1 && !failed.retryable)
            #expect(failed.reason.contains("a note needs some text"), "\(failed.reason)")
            #expect(try tester.container.rowCount(of: "Note") == 0)
        }
    }

    @Test func aNoteForTomorrowWaitsUntilTomorrow() async throws {
        try await withJobTester(model: Notes.model, registry: Notes.registry) { tester in
            let tomorrow = tester.clock.now + 86_400
            try tester.client.enqueue("add-note", AddNote(text: "later"), options: JobOptions(notBefore: tomorrow))
            #expect(try await tester.drain().done.isEmpty)
            tester.advance(by: .seconds(86_400))
            #expect(try await tester.drain().doneKinds == ["add-note"])
            #expect(try tester.container.rowCount(of: "Note") == 1)
        }
    }
}
