import Foundation
import LineupSpool
import Testing

@Suite("Recovery of interrupted jobs")
struct RecoveryTests {
    /// Claims every queued job and drops it, as a daemon that crashed mid-run would.
    func claimAndCrash(_ spool: SpoolDirectory) throws -> [ClaimedJob] {
        var claimed: [ClaimedJob] = []
        while let job = try spool.claimNext() {
            claimed.append(job)
        }
        return claimed
    }

    @Test("leftovers in active/ go back to new/ with one interruption counted, in their original order")
    func requeuesLeftovers() async throws {
        try await withSpool { spool in
            let a = try spool.enqueue(JobFile(kind: "a"))
            let b = try spool.enqueue(JobFile(kind: "b"))
            let c = try spool.enqueue(JobFile(kind: "c"))
            #expect(try claimAndCrash(spool).count == 3)
            let d = try spool.enqueue(JobFile(kind: "d"))

            let restarted = try SpoolDirectory(root: spool.root, durability: .none)
            let recovery = try restarted.recoverActive(maxInterruptions: 3)
            #expect(recovery.requeued == [a.name, b.name, c.name])
            #expect(recovery.poisoned == [])
            #expect(recovery.completed == [])
            #expect(recovery.failed == [])
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try fileNames(in: spool, "new") == [
                a.name + ".i1.job.json", b.name + ".i1.job.json", c.name + ".i1.job.json", d.fileName,
            ])
            #expect(try restarted.entries(.queued).map(\.interruptions) == [1, 1, 1, 0])

            var order: [String] = []
            var interruptions: [Int] = []
            while let job = try restarted.claimNext() {
                order.append(try job.decodeJobFile().kind)
                interruptions.append(job.interruptions)
            }
            #expect(order == ["a", "b", "c", "d"])
            #expect(interruptions == [1, 1, 1, 0])
        }
    }

    @Test("the same instance sees recovered jobs at once, even with a listing in hand")
    func recoveryRefreshesTheListing() async throws {
        try await withSpool { spool in
            let first = try spool.enqueue(JobFile(kind: "a"))
            try spool.enqueue(JobFile(kind: "b"))
            _ = try #require(try spool.claimNext())
            // The instance still holds "b" in its listing; recovery must not hide the
            // requeued "a" behind it.
            try spool.recoverActive()
            let next = try #require(try spool.claimNext())
            #expect(next.name == first.name)
            #expect(next.interruptions == 1)
        }
    }

    @Test("the count survives repeated crashes and the job is poisoned at the limit, with a report")
    func poisonsAfterLimit() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "import-buoy", id: "crasher", parameters: ["input": "x.rss"]))
            for round in 1...2 {
                #expect(try claimAndCrash(spool).map(\.interruptions) == [round - 1])
                let recovery = try spool.recoverActive(maxInterruptions: 3)
                #expect(recovery.requeued == [entry.name])
                #expect(try fileNames(in: spool, "new") == ["\(entry.name).i\(round).job.json"])
            }
            #expect(try claimAndCrash(spool).map(\.interruptions) == [2])
            let recovery = try spool.recoverActive(maxInterruptions: 3)
            #expect(recovery.requeued == [])
            #expect(recovery.poisoned == [entry.name])
            #expect(try fileNames(in: spool, "new") == [])
            #expect(try fileNames(in: spool, "active") == [])
            let failed = try #require(try spool.entries(.failed).first)
            let claim = try #require(failed.claim)
            let stem = entry.name + ".i3.c" + claim
            #expect(try fileNames(in: spool, "failed") == [stem + ".error.json", stem + ".job.json"])
            #expect(failed.interruptions == 3)
            let report = try spool.failureReport(for: failed)
            #expect(report.name == entry.name)
            #expect(report.id == "crasher")
            #expect(report.kind == "import-buoy")
            #expect(report.attempts == 3)
            #expect(report.interruptions == 3)
            #expect(report.retryable == false)
            #expect(report.startedAt == nil)
            #expect(
                report.reason
                    == "the daemon stopped while running this job 3 times; it is set aside as poison, as it may crash the daemon (job file \(entry.fileName))"
            )
        }
    }

    @Test("a limit of one poisons at the first interruption; an unreadable job still gets a report")
    func poisonsUnreadableJobs() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(contents: jobData("not json"))
            _ = try claimAndCrash(spool)
            let recovery = try spool.recoverActive(maxInterruptions: 1)
            #expect(recovery.poisoned == [entry.name])
            let report = try spool.failureReport(for: try #require(try spool.entries(.failed).first))
            #expect(report.kind == nil)
            #expect(report.id == nil)
            #expect(report.attempts == 1)
        }
    }

    @Test("a job whose result report was written before the crash is moved to done/")
    func finishesInterruptedCompletion() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try claimAndCrash(spool).first)
            // The crash came after the report was renamed into done/, before the job file was.
            try write("{}", to: spool.directory(.done).appending(path: claimed.stem + ".result.json"))
            let recovery = try spool.recoverActive()
            #expect(recovery.completed == [entry.name])
            #expect(recovery.requeued == [])
            #expect(try fileNames(in: spool, "done") == [claimed.fileName, claimed.stem + ".result.json"])
            #expect(try fileNames(in: spool, "active") == [])
            #expect(try fileNames(in: spool, "new") == [])
        }
    }

    @Test("a job whose error report was written before the crash is moved to failed/")
    func finishesInterruptedFailure() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try claimAndCrash(spool).first)
            try write("{}", to: spool.directory(.failed).appending(path: claimed.stem + ".error.json"))
            let recovery = try spool.recoverActive()
            #expect(recovery.failed == [entry.name])
            #expect(try fileNames(in: spool, "failed") == [claimed.fileName, claimed.stem + ".error.json"].sorted())
            #expect(try fileNames(in: spool, "active") == [])
        }
    }

    @Test("an empty active/ recovers nothing; non-job files there are left alone")
    func emptyActive() async throws {
        try await withSpool { spool in
            try write("x", to: spool.directory(.running).appending(path: ".lock"))
            let recovery = try spool.recoverActive()
            #expect(recovery.isEmpty)
            #expect(try fileNames(in: spool, "active") == [".lock"])
        }
    }

    @Test("stale files in tmp/ are removed, recent ones are kept")
    func removesStaleTemporaryFiles() async throws {
        try await withSpool { spool in
            let tmp = spool.root.appending(path: "tmp")
            try write("old", to: tmp.appending(path: "old.job.json"))
            try write("new", to: tmp.appending(path: "new.job.json"))
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-7200)],
                ofItemAtPath: tmp.appending(path: "old.job.json").path
            )
            #expect(try spool.removeStaleTemporaryFiles(olderThan: 3600) == 1)
            #expect(try fileNames(in: spool, "tmp") == ["new.job.json"])
        }
    }

    @Test("a report staged before a crash does not make its job done: the job runs again")
    func stagedReportIsNotCompletion() async throws {
        try await withSpool { spool in
            let job = try spool.enqueue(JobFile(kind: "a"))
            let claimed = try #require(try spool.claimNext())
            // Staged while the daemon waited for the flush that would carry the job; then a crash.
            _ = try spool.stageResultReport(Data("{}".utf8), of: claimed)
            let recovery = try spool.recoverActive()
            #expect(recovery.requeued == [job.name])
            #expect(recovery.completed == [])
            #expect(try fileNames(in: spool, "new") == ["\(job.name).i1.job.json"])
            #expect(try fileNames(in: spool, "done") == [])
            #expect(try fileNames(in: spool, "tmp") == [])
        }
    }

    @Test("half-written reports left in tmp/ by a crash are removed; a producer's files are not")
    func removesOrphanedReports() async throws {
        try await withSpool { spool in
            let job = try spool.enqueue(JobFile(kind: "a"))
            _ = try claimAndCrash(spool)
            let tmp = spool.root.appending(path: "tmp")
            try write("{}", to: tmp.appending(path: ".\(job.name).result.json"))
            try write("{}", to: tmp.appending(path: ".\(job.name).error.json"))
            try write("{}", to: tmp.appending(path: "producer-writing.job.json"))
            let recovery = try spool.recoverActive()
            #expect(recovery.requeued == [job.name])
            #expect(try fileNames(in: spool, "tmp") == ["producer-writing.job.json"])
        }
    }
}
