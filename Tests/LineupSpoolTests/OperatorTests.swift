import Foundation
import LineupSpool
import Testing

@Suite("Retry, cancel and discard")
struct OperatorTests {
    /// A job `nightly` claimed and failed: its claim, and its entry in `failed/`.
    func failedJob(in spool: SpoolDirectory) throws -> (ClaimedJob, SpoolEntry) {
        try spool.enqueue(JobFile(kind: "statistics", id: "nightly"))
        let job = try #require(try spool.claimNext())
        try spool.fail(
            job,
            report: JobFailureReport(
                name: job.name, id: "nightly", kind: "statistics", reason: "disk full", attempts: 3, retryable: true,
                startedAt: nil, finishedAt: Date()))
        return (job, try #require(try spool.entries(.failed, matching: "nightly").first))
    }

    @Test("a failed job retried from eight threads at once is queued once")
    func retryRace() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            let (job, failed) = try failedJob(in: spool)

            let successes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do throws(SpoolError) {
                            try spool.retry(failed)
                            return true
                        } catch {
                            #expect(error.code == .notFound, "\(error)")
                            return false
                        }
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(successes == 1)
            #expect(try spool.entries(.queued).map(\.name) == [job.name])
            #expect(try spool.counts() == JobCounts(queued: 1, running: 0, done: 0, failed: 0))
        }
    }

    @Test("a job cancelled from eight threads at once is failed once, and one a daemon claimed is not cancelled")
    func cancelRace() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            try spool.enqueue(JobFile(kind: "statistics", id: "a"))
            let queued = try #require(try spool.entries(.queued, matching: "a").first)
            let successes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask { (try? spool.cancel(queued)) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(successes == 1)
            #expect(try spool.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 1))

            try spool.enqueue(JobFile(kind: "statistics", id: "b"))
            let entry = try #require(try spool.entries(.queued, matching: "b").first)
            _ = try #require(try spool.claimNext())
            #expect(throws: SpoolError.self) { try spool.cancel(entry) }
            #expect(try spool.counts() == JobCounts(queued: 0, running: 1, done: 0, failed: 1))
        }
    }

    @Test("a failed job discarded and retried from eight threads at once is either discarded or queued, once; its report goes with it")
    func discardRace() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            let (_, failed) = try failedJob(in: spool)
            try spool.enqueue(JobFile(kind: "statistics", id: "queued"))
            let queuedEntry = try #require(try spool.entries(.queued, matching: "queued").first)
            let notFailed = try #require(throws: SpoolError.self) { try spool.discard(queuedEntry) }
            #expect(notFailed.code == .invalidPath)
            _ = try spool.cancel(queuedEntry)
            try spool.discard(try #require(try spool.entries(.failed, matching: "queued").first))

            let outcomes = await withTaskGroup(of: String?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do throws(SpoolError) {
                            if index.isMultiple(of: 2) {
                                try spool.discard(failed)
                                return "discarded"
                            }
                            try spool.retry(failed)
                            return "retried"
                        } catch {
                            #expect(error.code == .notFound, "\(error)")
                            return nil
                        }
                    }
                }
                return await group.compactMap { $0 }.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 1, "\(outcomes)")
            let failedFiles = try FileManager.default.contentsOfDirectory(atPath: spool.directory(.failed).path)
            #expect(failedFiles.isEmpty, "no job file and no error report left: \(failedFiles)")
            let queued = try spool.counts().queued
            #expect(queued == (outcomes == ["retried"] ? 1 : 0))
        }
    }
}
