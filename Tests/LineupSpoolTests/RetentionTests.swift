import Foundation
import LineupSpool
import Testing

@Suite("Retention of done jobs")
struct RetentionTests {
    /// Enqueues, claims and completes a job with this id; its report is dated `finished`.
    func finish(_ id: String, at finished: Date, in spool: SpoolDirectory) throws {
        try spool.enqueue(JobFile(kind: "statistics", id: id))
        let job = try #require(try spool.claimNext())
        try spool.complete(
            job,
            report: JobResultReport(
                name: job.name, id: id, kind: "statistics", attempts: 1, interruptions: 0, startedAt: finished,
                finishedAt: finished, details: [:]))
        let report = spool.directory(.done).appending(path: job.fileName.replacingOccurrences(of: ".job.json", with: ".result.json"))
        try FileManager.default.setAttributes([.modificationDate: finished], ofItemAtPath: report.path)
    }

    @Test("done jobs older than the cutoff go with their reports, except those a queued job waits for")
    func prunesOldDoneJobs() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            let old = Date().addingTimeInterval(-10 * 86_400)
            try finish("old", at: old, in: spool)
            try finish("needed", at: old, in: spool)
            try finish("fresh", at: Date(), in: spool)
            try spool.enqueue(JobFile(kind: "export-csv", id: "export", after: ["needed"]))

            let pruning = try spool.pruneDone(finishedBefore: Date().addingTimeInterval(-7 * 86_400))
            #expect(pruning.removed.count == 1)
            #expect(pruning.keptForDependents.count == 1)
            let kept = try spool.entries(.done).map(\.path)
            #expect(kept.count == 2)
            #expect(try spool.entries(.done, matching: "old").isEmpty)
            #expect(try !spool.entries(.done, matching: "needed").isEmpty)
            #expect(try !spool.entries(.done, matching: "fresh").isEmpty)
            let files = try FileManager.default.contentsOfDirectory(atPath: spool.directory(.done).path)
            #expect(files.filter { $0.hasSuffix(".result.json") }.count == 2, "the removed job's report went with it: \(files)")
        }
    }

    @Test("a queued bulk's lines keep the done jobs they wait for")
    func queuedBulkLinesKeepTheirDependencies() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            let old = Date().addingTimeInterval(-10 * 86_400)
            try finish("needed", at: old, in: spool)
            try finish("old", at: old, in: spool)
            try spool.enqueueBulk([JobFile(kind: "noop"), JobFile(kind: "noop", after: ["needed"])])

            let pruning = try spool.pruneDone(finishedBefore: Date().addingTimeInterval(-7 * 86_400))
            #expect(pruning.removed.count == 1)
            #expect(try !spool.entries(.done, matching: "needed").isEmpty)
            #expect(try spool.entries(.done, matching: "old").isEmpty)
        }
    }

    @Test("a done bulk stays while a queued job waits for one of its lines, and goes with its ledger after")
    func doneBulkKeptForItsLines() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            try spool.enqueueBulk([JobFile(kind: "noop", id: "line-a"), JobFile(kind: "noop")])
            while let line = try spool.claimNext() {
                try spool.complete(line, report: Data("{}\n".utf8))
            }
            let bulk = try #require(try spool.entries(.done).first)
            let ledger = spool.directory(.done).appending(path: bulk.fileName.replacingOccurrences(of: ".jobs.jsonl", with: ".results.jsonl"))
            #expect(FileManager.default.fileExists(atPath: ledger.path))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-10 * 86_400)], ofItemAtPath: ledger.path)
            try spool.enqueue(JobFile(kind: "export-csv", after: ["line-a"]))
            let cutoff = Date().addingTimeInterval(-7 * 86_400)

            let kept = try spool.pruneDone(finishedBefore: cutoff)
            #expect(kept.keptForDependents.map(\.fileName) == [bulk.fileName])
            #expect(kept.removed.isEmpty)

            for entry in try spool.entries(.queued) {
                try FileManager.default.removeItem(atPath: entry.path)
            }
            let pruned = try spool.pruneDone(finishedBefore: cutoff)
            #expect(pruned.removed.map(\.fileName) == [bulk.fileName])
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool.directory(.done).path).isEmpty)
        }
    }
}
