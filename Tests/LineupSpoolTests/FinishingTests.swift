import Foundation
import LineupSpool
import Testing

@Suite("Complete, fail and release")
struct FinishingTests {
    let started = Date(timeIntervalSince1970: 1_795_376_112)
    let finished = Date(timeIntervalSince1970: 1_795_376_113)

    @Test("complete writes the result report, then moves the job file beside it")
    func complete() async throws {
        try await withSpool { spool in
            let job = try JobFile(kind: "export-csv", parameters: ["entity": "JournalEntry", "output": "journal.csv"])
            let entry = try spool.enqueue(job)
            let claimed = try #require(try spool.claimNext())
            let report = JobResultReport(
                name: claimed.name,
                id: nil,
                kind: "export-csv",
                attempts: 1,
                startedAt: started,
                finishedAt: finished,
                details: ["rows": 12, "output": "journal.csv"]
            )
            try spool.complete(claimed, report: report)
            #expect(try fileNames(in: spool, "done") == [entry.fileName, entry.name + ".result.json"])
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try fileNames(in: spool, "new") == [])
            #expect(try fileNames(in: spool, "failed") == [])
            #expect(try fileNames(in: spool, "tmp") == [])
            #expect(try Data(contentsOf: spool.directory(.done).appending(path: entry.fileName)) == job.encoded())
            #expect(try spool.resultReport(for: try #require(try spool.entries(.done).first)) == report)
        }
    }

    @Test("complete keeps the bytes it is given as the report")
    func completeWithBytes() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data(#"{"custom":true}"#.utf8))
            let written = try Data(contentsOf: spool.directory(.done).appending(path: entry.name + ".result.json"))
            #expect(String(decoding: written, as: UTF8.self) == #"{"custom":true}"#)
        }
    }

    @Test("an interrupted job keeps its counted file name in done/, and its report the plain name")
    func completeInterrupted() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            _ = try spool.claimNext()
            try spool.recoverActive()
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data("{}".utf8))
            #expect(try fileNames(in: spool, "done") == [entry.name + ".i1.job.json", entry.name + ".result.json"])
        }
    }

    @Test("a group of jobs completes together")
    func completeGroup() async throws {
        try await withSpool { spool in
            let entries = try (0..<3).map { _ in try spool.enqueue(JobFile(kind: "statistics")) }
            var group: [(job: ClaimedJob, report: Data)] = []
            while let job = try spool.claimNext() {
                group.append((job, Data(#"{"n":"\#(job.name)"}"#.utf8)))
            }
            try spool.complete(group)
            let expected = entries.flatMap { [$0.fileName, $0.name + ".result.json"] }.sorted()
            #expect(try fileNames(in: spool, "done") == expected)
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try spool.counts() == SpoolCounts(queued: 0, running: 0, done: 3, failed: 0))
        }
    }

    @Test("a staged report waits in tmp/, invisible, until complete(staged:) moves it and its job to done/")
    func stagedCompletion() async throws {
        try await withSpool { spool in
            let entries = try (0..<2).map { _ in try spool.enqueue(JobFile(kind: "statistics")) }
            var staged: [StagedReport] = []
            while let claimed = try spool.claimNext() {
                #expect(claimed.path == spool.directory(.running).appending(path: claimed.fileName).path)
                #expect(claimed.url.path == claimed.path)
                let report = JobResultReport(
                    name: claimed.name, id: nil, kind: "statistics", attempts: 1, startedAt: started, finishedAt: finished)
                staged.append(try spool.stageResultReport(report.encoded(), of: claimed))
            }
            #expect(staged.map(\.job.name) == entries.map(\.name))
            #expect(try fileNames(in: spool, "tmp") == entries.map { ".\($0.name).result.json" })
            #expect(try fileNames(in: spool, "done") == [])
            #expect(try spool.counts() == SpoolCounts(queued: 0, running: 2, done: 0, failed: 0))

            try spool.complete(staged: staged)
            let expected = entries.flatMap { [$0.fileName, $0.name + ".result.json"] }.sorted()
            #expect(try fileNames(in: spool, "done") == expected)
            #expect(try fileNames(in: spool, "tmp") == [])
            #expect(try fileNames(in: spool, "active") == [])
            for entry in try spool.entries(.done) {
                #expect(try spool.resultReport(for: entry).name == entry.name)
            }
        }
    }

    @Test("a staged report that vanished from tmp/ stops complete(staged:) before its job moves")
    func stagedReportVanished() async throws {
        try await withSpool { spool in
            try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try spool.claimNext())
            let staged = try spool.stageResultReport(Data("{}".utf8), of: claimed)
            #expect(try spool.removeStaleTemporaryFiles(olderThan: -1) == 1)
            let error = try #require(throws: SpoolError.self) { try spool.complete(staged: [staged]) }
            #expect(error.code == .notFound)
            #expect(error.path == "\(spool.root.path)/tmp/.\(claimed.name).result.json")
            #expect(error.message == "report vanished from tmp/ before it was moved")
            #expect(try spool.counts() == SpoolCounts(queued: 0, running: 1, done: 0, failed: 0))
            #expect(try fileNames(in: spool, "done") == [])
        }
    }

    @Test("fail writes the error report, then moves the job file beside it")
    func fail() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(contents: jobData("{"))
            let claimed = try #require(try spool.claimNext())
            let reason = try #require(throws: SpoolError.self) { try claimed.decodeJobFile() }.description
            let report = JobFailureReport(
                name: claimed.name,
                id: nil,
                kind: nil,
                reason: reason,
                attempts: 1,
                retryable: false,
                startedAt: started,
                finishedAt: finished
            )
            try spool.fail(claimed, report: report)
            #expect(try fileNames(in: spool, "failed") == [entry.name + ".error.json", entry.fileName])
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try fileNames(in: spool, "done") == [])
            #expect(try fileNames(in: spool, "tmp") == [])
            #expect(try spool.failureReport(for: try #require(try spool.entries(.failed).first)) == report)
        }
    }

    @Test("release returns the job to new/ unchanged, and it is claimed again without an interruption")
    func release() async throws {
        try await withSpool { spool in
            let first = try spool.enqueue(JobFile(kind: "a"))
            let second = try spool.enqueue(JobFile(kind: "b"))
            let claimed = try #require(try spool.claimNext())
            try spool.release(claimed)
            #expect(try fileNames(in: spool, "new") == [first.fileName, second.fileName])
            #expect(try fileNames(in: spool, "active") == [])
            let again = try #require(try spool.claimNext())
            #expect(again.name == first.name)
            #expect(again.interruptions == 0)
            #expect(try spool.claimNext()?.name == second.name)
        }
    }

    @Test("finishing a job that is no longer in active/ fails and says so", arguments: [0, 1, 2])
    func finishingAJobTwice(operation: Int) async throws {
        try await withSpool { spool in
            try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data("{}".utf8))
            let error = try #require(throws: SpoolError.self) {
                switch operation {
                case 0: try spool.complete(claimed, report: Data("{}".utf8))
                case 1: try spool.fail(claimed, report: Data("{}".utf8))
                default: try spool.release(claimed)
                }
            }
            #expect(error.code == .notFound)
            #expect(error.path == claimed.url.path)
            #expect(try spool.counts() == SpoolCounts(queued: 0, running: 0, done: 1, failed: 0))
        }
    }
}
