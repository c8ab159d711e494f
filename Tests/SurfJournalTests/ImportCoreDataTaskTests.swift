import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import SurfJournal
import Testing

@Suite struct ImportCoreDataTaskTests {
    @Test func theSurfJournalSeedStore() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("surfjournal/SurfJournalModel.sqlite", withSidecars: true)
        let job = #"{"kind": "import-coredata", "input": "SurfJournalModel.sqlite"}"#
        let outcome = try fixture.runSucceeding(job)
        #expect(outcome.counts["inserted"] == 5_000)
        #expect(outcome.reportDetails["warnings"] == nil)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 5_000)
        let context = fixture.container.newTaskContext(name: "check")
        try context.performAndWait {
            let oldest = try context.fetch(FetchRequest<JournalEntry>(sortedBy: [.ascending(\.date)], limit: 1))[0]
            let newest = try context.fetch(FetchRequest<JournalEntry>(sortedBy: [.descending(\.date)], limit: 1))[0]
            #expect(oldest.date!.ISO8601Format().hasPrefix("2004-09-02"))
            #expect(newest.date!.ISO8601Format().hasPrefix("2014-08-29"))
            let locations = try context.aggregate(
                AggregateRequest<JournalEntry>(groupBy: [.property(\.location, as: "location")], aggregates: [.count(as: "n")]))
            #expect(locations.count == 10)
        }
        let again = try fixture.runSucceeding(job)
        #expect(again.counts["inserted"] == 0)
        #expect(try fixture.container.rowCount(of: "JournalEntry") == 5_000)
    }

    /// Never an empty journal reported as the truth: a WAL-mode store copied without its -wal
    /// reads empty, and the job's summary and report say why.
    @Test func aStoreWithoutItsWALSaysSo() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("surfjournal/SurfJournalModel.sqlite")
        let result = try fixture.run(#"{"kind": "import-coredata", "input": "SurfJournalModel.sqlite"}"#)
        let outcome = try #require(result.outcome, "\(String(describing: result.error))")
        #expect(outcome.counts["inserted"] == 0)
        #expect(outcome.summary.contains("warning: the store is in WAL mode and SurfJournalModel.sqlite-wal is not beside it"))
        guard case let .array(warnings)? = outcome.reportDetails["warnings"] else {
            Issue.record("no warnings in the report: \(outcome.reportDetails)")
            return
        }
        #expect(warnings.count == 1)
        #expect(warnings.first == .string(
            "\(fixture.input.appendingPathComponent("SurfJournalModel.sqlite").path): the store is in WAL mode and SurfJournalModel.sqlite-wal is not beside it: the rows a Core Data app saved since its last checkpoint are in that file, so this store may read as partial or empty; copy the store with its -wal and -shm"))
    }

    @Test func theProjectsOwnSeedJournal() throws {
        let fixture = try JournalFixture()
        let packageSeed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/journal/SurfJournalSeed.sqlite")
        try FileManager.default.copyItem(at: packageSeed, to: fixture.input.appendingPathComponent("seed.sqlite"))
        let outcome = try fixture.runSucceeding(#"{"kind": "import-coredata", "input": "seed.sqlite"}"#)
        #expect(outcome.counts["inserted"] == 240)
        #expect(!outcome.summary.contains("warning"), "a rollback-journal store needs no -wal")
    }

    @Test func notACoreDataStoreFailsWithoutRetry() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("notes.sqlite", "plain text")
        let result = try fixture.run(#"{"kind": "import-coredata", "input": "notes.sqlite"}"#)
        let error = try #require(result.error as? JobError)
        #expect(!error.isRetryable)
        #expect(error.description.contains("notes.sqlite"))
    }
}
