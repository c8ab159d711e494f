import Foundation
import LineupSpool
import Testing

/// Every claim is its own: jobs that share a name (a nightly job written by hand each night, a
/// file moved back from `failed/` to retry it) never replace each other's file, never share a
/// report, and recovery never files one as finished on the strength of another's report.
@Suite("Claims of jobs that share a name")
struct ClaimIdentityTests {
    /// Drops a hand-named job file into `new/`, as a producer other than `lineup enqueue` does.
    func dropJob(named name: String, kind: String = "statistics", into spool: SpoolDirectory) throws {
        let temporary = spool.root.appending(path: "tmp/\(name).job.json")
        try write(#"{"kind":"\#(kind)"}"#, to: temporary)
        try FileManager.default.moveItem(at: temporary, to: spool.directory(.queued).appending(path: "\(name).job.json"))
    }

    /// Recovery as a new daemon would run it after a crash.
    func crashAndRecover(_ spool: SpoolDirectory) throws -> SpoolRecovery {
        try spool.recoverActive(maxInterruptions: 100)
    }

    @Test("a job claimed while another of its name runs has a file of its own; both finish")
    func sameNameWhileTheFirstRuns() async throws {
        try await withSpool { spool in
            try dropJob(named: "nightly", into: spool)
            let first = try #require(try spool.claimNext())
            try dropJob(named: "nightly", kind: "export-csv", into: spool)
            let second = try #require(try spool.claimNext())

            #expect(first.name == "nightly" && second.name == "nightly")
            #expect(first.claim != second.claim)
            #expect(try fileNames(in: spool, "active") == [first.fileName, second.fileName].sorted())
            #expect(try first.decodeJobFile().kind == "statistics")
            #expect(try second.decodeJobFile().kind == "export-csv")

            try spool.complete(second, report: Data(#"{"which":"second"}"#.utf8))
            try spool.complete(first, report: Data(#"{"which":"first"}"#.utf8))
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 0))
            for (job, which) in [(first, "first"), (second, "second")] {
                let report = try Data(contentsOf: spool.directory(.done).appending(path: job.stem + ".result.json"))
                #expect(String(decoding: report, as: UTF8.self) == #"{"which":"\#(which)"}"#)
            }
        }
    }

    @Test("two jobs of one name interrupted together both go back to new/, and both run again")
    func sameNameBothInterrupted() async throws {
        try await withSpool { spool in
            try dropJob(named: "nightly", into: spool)
            let first = try #require(try spool.claimNext())
            try dropJob(named: "nightly", kind: "export-csv", into: spool)
            let second = try #require(try spool.claimNext())

            let recovery = try crashAndRecover(spool)
            #expect(recovery.requeued == ["nightly", "nightly"])
            let queued = try fileNames(in: spool, "new")
            #expect(queued.count == 2)
            // The first back takes the plain name; the other keeps its old claim to stay apart.
            let claimsKept = Set([first.claim, second.claim]).filter { claim in queued.contains { $0.contains(claim) } }
            #expect(queued.contains("nightly.i1.job.json"))
            #expect(claimsKept.count == 1)

            let again = [try #require(try spool.claimNext()), try #require(try spool.claimNext())]
            #expect(Set(try again.map { try $0.decodeJobFile().kind }) == ["statistics", "export-csv"])
            #expect(again.allSatisfy { $0.interruptions == 1 && $0.name == "nightly" })
            #expect(Set(again.map(\.claim)).isDisjoint(with: [first.claim, second.claim]))
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test("after a crash, a job is not filed as done on the strength of an earlier job's report of the same name")
    func earlierDoneJobDoesNotFinishALaterOne() async throws {
        try await withSpool { spool in
            try dropJob(named: "nightly", into: spool)
            let earlier = try #require(try spool.claimNext())
            try spool.complete(earlier, report: Data("{}".utf8))

            try dropJob(named: "nightly", into: spool)
            _ = try #require(try spool.claimNext())
            let recovery = try crashAndRecover(spool)
            #expect(recovery.completed == [])
            #expect(recovery.requeued == ["nightly"])
            #expect(try fileNames(in: spool, "new") == ["nightly.i1.job.json"])

            let later = try #require(try spool.claimNext())
            try spool.complete(later, report: Data("{}".utf8))
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 0))
            #expect(try fileNames(in: spool, "done").count == 4)
        }
    }

    @Test("after a crash, a job is not filed as failed on the strength of an earlier failure of the same name")
    func earlierFailedJobDoesNotFailALaterOne() async throws {
        try await withSpool { spool in
            try dropJob(named: "nightly", into: spool)
            let earlier = try #require(try spool.claimNext())
            try spool.fail(earlier, report: Data("{}".utf8))
            // Moved back by hand to retry it, under the name it had when it was enqueued.
            let failedFile = spool.directory(.failed).appending(path: earlier.fileName)
            try FileManager.default.moveItem(at: failedFile, to: spool.directory(.queued).appending(path: "nightly.job.json"))

            _ = try #require(try spool.claimNext())
            let recovery = try crashAndRecover(spool)
            #expect(recovery.failed == [])
            #expect(recovery.requeued == ["nightly"])

            let retried = try #require(try spool.claimNext())
            try spool.complete(retried, report: Data("{}".utf8))
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
            // The earlier failure's report stays, beside nothing: the job it describes was retried.
            #expect(try fileNames(in: spool, "failed") == [earlier.stem + ".error.json"])
        }
    }

    @Test("a job file moved back from failed/ with its claim still in the name gets a fresh claim")
    func retriedWithItsOldClaim() async throws {
        try await withSpool { spool in
            try dropJob(named: "nightly", into: spool)
            let earlier = try #require(try spool.claimNext())
            try spool.fail(earlier, report: Data("{}".utf8))
            try FileManager.default.moveItem(
                at: spool.directory(.failed).appending(path: earlier.fileName),
                to: spool.directory(.queued).appending(path: earlier.fileName))

            let retried = try #require(try spool.claimNext())
            #expect(retried.name == "nightly")
            #expect(retried.claim != earlier.claim)
            try spool.fail(retried, report: Data(#"{"second":true}"#.utf8))
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 1))
            #expect(try fileNames(in: spool, "failed").count == 3)
        }
    }

    @Test("failed attempts are counted in the file name and survive a crash")
    func failedAttemptsSurviveACrash() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            var claimed = try #require(try spool.claimNext())
            #expect(claimed.failedAttempts == 0)
            claimed = try spool.recordFailedAttempt(of: claimed)
            claimed = try spool.recordFailedAttempt(of: claimed)
            #expect(claimed.failedAttempts == 2)
            #expect(try fileNames(in: spool, "active") == [claimed.fileName])
            #expect(claimed.fileName == "\(entry.name).a2.c\(claimed.claim).job.json")

            _ = try crashAndRecover(spool)
            #expect(try fileNames(in: spool, "new") == ["\(entry.name).i1.a2.job.json"])
            let again = try #require(try spool.claimNext())
            #expect(again.failedAttempts == 2)
            #expect(again.interruptions == 1)
            #expect(again.name == entry.name)
            #expect(try spool.entries(.running).first?.failedAttempts == 2)
        }
    }

    @Test("a graceful release keeps the failed attempts and drops the claim")
    func releaseKeepsFailedAttempts() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try spool.recordFailedAttempt(of: try #require(try spool.claimNext()))
            try spool.release(claimed)
            #expect(try fileNames(in: spool, "new") == ["\(entry.name).a1.job.json"])
        }
    }
}
