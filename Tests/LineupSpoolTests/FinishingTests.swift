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
            #expect(claimed.fileName.hasPrefix(entry.name + ".c"))
            #expect(try fileNames(in: spool, "done") == [claimed.fileName, claimed.stem + ".result.json"])
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try fileNames(in: spool, "new") == [])
            #expect(try fileNames(in: spool, "failed") == [])
            #expect(try fileNames(in: spool, "tmp") == [])
            #expect(try Data(contentsOf: spool.directory(.done).appending(path: claimed.fileName)) == job.encoded())
            #expect(try spool.resultReport(for: try #require(try spool.entries(.done).first)) == report)
        }
    }

    @Test("complete keeps the bytes it is given as the report")
    func completeWithBytes() async throws {
        try await withSpool { spool in
            try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data(#"{"custom":true}"#.utf8))
            let written = try Data(contentsOf: spool.directory(.done).appending(path: claimed.stem + ".result.json"))
            #expect(String(decoding: written, as: UTF8.self) == #"{"custom":true}"#)
        }
    }

    @Test("an interrupted job keeps its counted file name in done/, and its report shares its stem")
    func completeInterrupted() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            _ = try spool.claimNext()
            try spool.recoverActive()
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data("{}".utf8))
            #expect(claimed.stem == entry.name + ".i1.c" + claimed.claim)
            #expect(try fileNames(in: spool, "done") == [claimed.stem + ".job.json", claimed.stem + ".result.json"])
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
            #expect(group.map(\.job.name) == entries.map(\.name))
            try spool.complete(group)
            let expected = group.flatMap { [$0.job.fileName, $0.job.stem + ".result.json"] }.sorted()
            #expect(try fileNames(in: spool, "done") == expected)
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 3, failed: 0))
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
            #expect(try fileNames(in: spool, "tmp") == staged.map { ".\($0.job.stem).result.json" }.sorted())
            #expect(try fileNames(in: spool, "done") == [])
            #expect(try spool.counts() == JobCounts(queued: 0, running: 2, done: 0, failed: 0))

            try spool.complete(staged: staged)
            let expected = staged.flatMap { [$0.job.fileName, $0.job.stem + ".result.json"] }.sorted()
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
            #expect(error.path == "\(spool.root.path)/tmp/.\(claimed.stem).result.json")
            #expect(error.message == "report vanished from tmp/ before it was moved")
            #expect(try spool.counts() == JobCounts(queued: 0, running: 1, done: 0, failed: 0))
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
            #expect(claimed.name == entry.name)
            #expect(try fileNames(in: spool, "failed") == [claimed.fileName, claimed.stem + ".error.json"].sorted())
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
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
        }
    }
}
