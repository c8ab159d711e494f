import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import SurfJournal
import Testing

/// `import-buoy … statistics=<output>`: the statistics job is enqueued with the import's rows,
/// into the store's outbox, and not at all by an import that fails.
@Suite struct ImportFollowUpTests {
    private func outbox(_ fixture: JournalFixture) throws -> [JobFile] {
        try fixture.container.outboxEntries(on: OutboxMessage.jobChannel, limit: 10).map { try JobFile(data: $0.message.body) }
    }

    @Test func anImportEnqueuesItsStatisticsJobWithItsRows() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/pyoos-ndbc-sos-winds-41012.xml")
        _ = try fixture.runSucceeding(
            #"{"kind": "import-buoy", "id": "winds", "input": "pyoos-ndbc-sos-winds-41012.xml", "statistics": "winds.json"}"#)
        let jobs = try outbox(fixture)
        #expect(jobs.map(\.kind) == ["statistics"])
        #expect(jobs.first?.id == "winds-statistics")
        #expect(jobs.first?.parameters["output"] == "winds.json")
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 24)
    }

    @Test func anImportThatFailsEnqueuesNothing() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("broken.xml", "<rss><channel><item>")
        let error = try fixture.runFailing(#"{"kind": "import-buoy", "input": "broken.xml", "statistics": "stats.json"}"#)
        #expect(!error.isRetryable)
        try fixture.expectNothingStored()
        #expect(try outbox(fixture).isEmpty)
    }

    @Test func aStatisticsOutputOutsideTheOutputDirectoryFailsTheImportItself() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/pyoos-ndbc-sos-winds-41012.xml")
        #expect(throws: (any Error).self) {
            try fixture.run(#"{"kind": "import-buoy", "input": "pyoos-ndbc-sos-winds-41012.xml", "statistics": "../elsewhere.json"}"#)
        }
        try fixture.expectNothingStored()
        #expect(try outbox(fixture).isEmpty)
    }
}
