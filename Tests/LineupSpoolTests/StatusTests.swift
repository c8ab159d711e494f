import Foundation
import LineupSpool
import Testing

@Suite("Counts and listings")
struct StatusTests {
    @Test("counts and entries follow the jobs through every directory; reports are not counted")
    func countsAndEntries() async throws {
        try await withSpool { spool in
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 0))
            let entries = try (0..<5).map { _ in try spool.enqueue(JobFile(kind: "statistics")) }
            #expect(try spool.counts() == JobCounts(queued: 5, running: 0, done: 0, failed: 0))

            let first = try #require(try spool.claimNext())
            let second = try #require(try spool.claimNext())
            let third = try #require(try spool.claimNext())
            try spool.complete(first, report: Data("{}".utf8))
            try spool.fail(second, report: Data("{}".utf8))
            let counts = try spool.counts()
            #expect(counts == JobCounts(queued: 2, running: 1, done: 1, failed: 1))
            #expect(counts[.queued] == 2)
            #expect(counts.description == "queued 2, running 1, done 1, failed 1")

            #expect(try spool.entries(.queued).map(\.name) == [entries[3].name, entries[4].name])
            #expect(try spool.entries(.running).map(\.name) == [third.name])
            #expect(try spool.entries(.done).map(\.name) == [first.name])
            let failed = try spool.entries(.failed)
            #expect(failed.map(\.name) == [second.name])
            #expect(failed.map(\.state) == [.failed])
            #expect(failed.map(\.url) == [spool.directory(.failed).appending(path: second.fileName)])
        }
    }

    @Test("a job without its report is reported as missing, naming the report")
    func missingReport() async throws {
        try await withSpool { spool in
            try spool.enqueue(JobFile(kind: "statistics"))
            let entry = try #require(try spool.entries(.queued).first)
            let error = try #require(throws: SpoolError.self) { try spool.resultReport(for: entry) }
            #expect(error.code == .notFound)
            #expect(error.path == spool.directory(.done).appending(path: entry.name + ".result.json").path)
        }
    }

    @Test("the directories are named as the protocol says")
    func directoryNames() {
        #expect(JobState.allCases.map(\.directoryName) == ["new", "active", "done", "failed"])
    }

    @Test("a jobs table stores each state under the name its CHECK constraint allows, and reads it back")
    func columnValues() {
        #expect(JobState.allCases.map(\.columnValue) == ["queued", "running", "done", "failed"])
        #expect(JobState.allCases.map(\.columnValue).map(JobState.init(columnValue:)) == JobState.allCases)
        #expect(JobState(columnValue: "available") == nil, "job-table schema version 2 stores a queued job by its name")
    }

    @Test("counts encode as one object keyed by state, as lineup status --json has always printed them")
    func countsEncoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let counts = JobCounts(queued: 4, running: 3, done: 2, failed: 1)
        #expect(String(decoding: try encoder.encode(counts), as: UTF8.self) == #"{"done":2,"failed":1,"queued":4,"running":3}"#)
        #expect(try JSONDecoder().decode(JobCounts.self, from: encoder.encode(counts)) == counts)
    }
}
