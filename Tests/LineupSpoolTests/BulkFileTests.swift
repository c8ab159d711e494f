import Foundation
import LineupSpool
import Testing

/// Bulk files (`*.jobs.jsonl`): enqueued and claimed as one file, each line a job of its own,
/// acknowledged in the bulk's ledger; a bad line fails alone; a crash or a shutdown never runs an
/// acknowledged line again.
@Suite("Bulk files")
struct BulkFileTests {
    /// Three jobs, a blank line, and a line that is not JSON: job lines 1, 2, 4 and 5.
    static let contents = Data(
        """
        {"kind":"noop","n":1}
        {"kind":"noop","n":2}

        {"kind":"noop","n":4}
        not a job
        """.utf8)

    @Test("a bulk's job lines are numbered as an editor numbers them: blank lines count, line endings are not part of a job")
    func jobLinesAndTheirNumbers() {
        func lines(_ text: String) -> [String] {
            SpoolDirectory.jobLines(ofBulk: Data(text.utf8)).map { "\($0.number):\(String(decoding: $0.contents, as: UTF8.self))" }
        }
        #expect(lines("a\nb") == ["1:a", "2:b"])
        #expect(lines("a\nb\n") == ["1:a", "2:b"], "a final line break ends the last line, it starts none")
        #expect(lines("\n \t\r\na\n\n\nb") == ["3:a", "6:b"], "blank lines, spaces and tabs only, count")
        #expect(lines("a\r\nb\r\n") == ["1:a\r", "2:b\r"], "a carriage return stays with its line, as JSON allows")
        #expect(lines("") == [] && lines("\n\n") == [])
        // A slice of a larger buffer: the ranges are the slice's own indices.
        let buffer = Data("xx\nc\nd".utf8)
        let slice = buffer[buffer.startIndex + 3..<buffer.endIndex]
        #expect(SpoolDirectory.jobLines(ofBulk: slice).map { String(decoding: $0.contents, as: UTF8.self) } == ["c", "d"])
    }

    func report(_ line: Int) -> Data {
        Data("{\n  \"line\" : \(line)\n}\n".utf8)
    }

    /// Claims every line the spool hands out now.
    func claimAll(_ spool: SpoolDirectory) throws -> [ClaimedJob] {
        var claimed: [ClaimedJob] = []
        while let job = try spool.claimNext() { claimed.append(job) }
        return claimed
    }

    /// A new instance on the same spool, as after a crash: recovers `active/`, then claims every
    /// line it hands out.
    func restartAndClaim(_ spool: SpoolDirectory) throws -> (SpoolDirectory, [ClaimedJob]) {
        let restarted = try SpoolDirectory(root: spool.root, durability: .none)
        try restarted.recoverActive()
        return (restarted, try claimAll(restarted))
    }

    func ledgerLines(_ spool: SpoolDirectory, _ directory: String, suffix: String) throws -> [String] {
        guard let name = try fileNames(in: spool, directory).first(where: { $0.hasSuffix(suffix) }) else { return [] }
        let text = try String(contentsOf: spool.root.appending(path: directory).appending(path: name), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    @Test("one file in new/; its lines come out as jobs of their own, in order, numbered as an editor numbers them")
    func linesAreJobs() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk(contents: Self.contents)
            #expect(entry.isBulk && entry.fileName == entry.name + ".jobs.jsonl")
            #expect(try fileNames(in: spool, "new") == [entry.fileName])

            let lines = try claimAll(spool)
            #expect(lines.map { $0.bulkLine?.number } == [1, 2, 4, 5])
            #expect(lines.map(\.name) == [1, 2, 4, 5].map { entry.name + ".line\($0)" })
            #expect(Set(lines.map(\.claim)).count == 4)
            #expect(lines.allSatisfy { $0.bulkLine?.bulkName == entry.fileName })
            #expect(try lines[0].decodeJobFile().parameters["n"] == .integer(1))
            #expect(lines[3].enqueuedFileName == entry.fileName + ":5")
            // The bad line fails to decode, naming the file and the line.
            #expect {
                try lines[3].decodeJobFile()
            } throws: { error in
                (error as? SpoolError)?.description.contains(".jobs.jsonl:5") == true
            }
            // Claimed as one file: one rename into active/.
            #expect(try fileNames(in: spool, "new") == [])
            #expect(try fileNames(in: spool, "active").filter { $0.hasSuffix(".jobs.jsonl") }.count == 1)
        }
    }

    @Test("lines are acknowledged in the ledger; once each has an outcome the bulk is done, and a failed line lies in failed/ alone")
    func settlesPerLine() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk(contents: Self.contents)
            let lines = try claimAll(spool)
            try spool.complete(lines[0...2].map { (job: $0, report: report($0.bulkLine!.number)) })
            #expect(try ledgerLines(spool, "active", suffix: ".ledger.jsonl").count == 3)
            #expect(try fileNames(in: spool, "done") == [], "a line is still out")

            try spool.fail(lines[3], report: report(5))
            let done = try fileNames(in: spool, "done")
            #expect(done.count == 2 && done.contains { $0.hasSuffix(".jobs.jsonl") } && done.contains { $0.hasSuffix(".results.jsonl") })
            let results = try ledgerLines(spool, "done", suffix: ".results.jsonl")
            #expect(results.count == 4)
            #expect(results.filter { $0.contains("\"outcome\":\"done\"") }.count == 3)
            #expect(results.last?.hasPrefix("{\"line\":5,\"outcome\":\"failed\"") == true)
            for result in results {
                #expect((try? JSONSerialization.jsonObject(with: Data(result.utf8))) != nil, "\(result) is one JSON object")
            }
            #expect(try fileNames(in: spool, "active") == [])

            let failed = try spool.entries(.failed)
            #expect(failed.map(\.name) == [entry.name + ".line5"])
            #expect(try Data(contentsOf: failed[0].url) == Data("not a job".utf8))
            #expect(try fileNames(in: spool, "failed").count == 2, "the line's job file and its error report")
        }
    }

    @Test("after a crash the bulk is claimed again, and only its lines without an outcome run, with their failed attempts")
    func crashRunsOnlyUnsettledLines() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk(contents: Self.contents)
            let lines = try claimAll(spool)
            try spool.complete(lines[0], report: report(1))
            _ = try spool.recordFailedAttempt(of: lines[1])
            try spool.fail(lines[3], report: report(5))
            // The daemon dies here, lines 2 and 4 running.

            let restarted = try SpoolDirectory(root: spool.root, durability: .none)
            let recovery = try restarted.recoverActive(maxInterruptions: 3)
            #expect(recovery.requeued == [entry.name])
            let queued = try restarted.entries(.queued)
            #expect(queued.count == 1 && queued[0].isBulk && queued[0].interruptions == 1)
            #expect(queued[0].claim == lines[0].jobFileClaim, "a bulk keeps its claim, which names its ledger")

            let again = try claimAll(restarted)
            #expect(again.map { $0.bulkLine?.number } == [2, 4])
            #expect(again.map(\.failedAttempts) == [1, 0])
            #expect(again.allSatisfy { $0.interruptions == 1 })
            try restarted.complete(again.map { (job: $0, report: report($0.bulkLine!.number)) })
            let results = try ledgerLines(restarted, "done", suffix: ".results.jsonl")
            #expect(results.filter { $0.contains("\"outcome\":\"done\"") }.count == 3)
            #expect(try restarted.entries(.failed).count == 1, "the failed line is filed once")
        }
    }

    @Test("an entry cut short by a power cut is dropped, and the next entry starts on a line of its own")
    func tornLedgerEntry() async throws {
        try await withSpool { spool in
            _ = try spool.enqueueBulk(contents: Self.contents)
            let lines = try claimAll(spool)
            try spool.complete(lines[0], report: report(1))
            let ledger = try #require(try fileNames(in: spool, "active").first { $0.hasSuffix(".ledger.jsonl") })
            let handle = try FileHandle(forWritingTo: spool.root.appending(path: "active").appending(path: ledger))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{\"line\":2,\"outcome\":\"do".utf8))
            try handle.close()

            let (restarted, again) = try restartAndClaim(spool)
            #expect(again.map { $0.bulkLine?.number } == [2, 4, 5])
            try restarted.complete(again[0], report: report(2))
            #expect(try ledgerLines(restarted, "active", suffix: ".ledger.jsonl").count == 2)
        }
    }

    @Test("a failed line that a crash kept out of failed/ is filed when the bulk is claimed again")
    func refilesFailedLine() async throws {
        try await withSpool { spool in
            _ = try spool.enqueueBulk(contents: Self.contents)
            let lines = try claimAll(spool)
            try spool.fail(lines[3], report: report(5))
            for name in try fileNames(in: spool, "failed") {
                try FileManager.default.removeItem(at: spool.root.appending(path: "failed").appending(path: name))
            }

            let (restarted, again) = try restartAndClaim(spool)
            #expect(again.map { $0.bulkLine?.number } == [1, 2, 4])
            let failed = try restarted.entries(.failed)
            #expect(failed.count == 1)
            #expect(try fileNames(in: restarted, "failed").count == 2, "the line's job file and its error report")
            #expect(try String(contentsOf: failed[0].url, encoding: .utf8) == "not a job")
        }
    }

    @Test("at shutdown the bulk goes back to new/ once its lines out are released, uncounted, and runs on from there")
    func releaseReturnsBulk() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk(contents: Self.contents)
            let first = try #require(try spool.claimNext())
            let second = try #require(try spool.claimNext())
            try spool.complete(first, report: report(1))
            try spool.releaseClaimedBulks()
            #expect(try spool.claimNext() == nil, "a bulk being released hands out nothing more")
            #expect(try fileNames(in: spool, "new") == [], "a line is still out")
            try spool.release(second)
            let queued = try spool.entries(.queued)
            #expect(queued.count == 1 && queued[0].name == entry.name && queued[0].interruptions == 0)

            #expect(try restartAndClaim(spool).1.map { $0.bulkLine?.number } == [2, 4, 5])
        }
    }

    @Test("a line may wait for its notBefore inside its bulk; the bulk is done only after it")
    func postponedLine() async throws {
        try await withSpool { spool in
            _ = try spool.enqueueBulk(contents: Data("{\"kind\":\"noop\"}\n{\"kind\":\"noop\"}\n".utf8))
            let lines = try claimAll(spool)
            try spool.postpone(lines[1], until: Date().addingTimeInterval(1))
            #expect(try spool.claimNext() == nil, "not due yet")
            try spool.complete(lines[0], report: report(1))
            #expect(try fileNames(in: spool, "done") == [])
            try await Task.sleep(for: .milliseconds(2_100))
            let due = try #require(try spool.claimNext())
            #expect(due.bulkLine?.number == 2)
            try spool.complete(due, report: report(2))
            #expect(try fileNames(in: spool, "done").count == 2)
        }
    }

    @Test("a bulk with no job in it is handed out whole, and fails whole")
    func emptyBulkFailsWhole() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk(contents: Data("\n  \n".utf8))
            let claimed = try #require(try spool.claimNext())
            #expect(claimed.isBulk && claimed.bulkLine == nil)
            #expect {
                try claimed.decodeJobFile()
            } throws: { error in
                (error as? SpoolError)?.description.contains(entry.name) == true
            }
            try spool.fail(claimed, report: report(0))
            let failed = try fileNames(in: spool, "failed")
            #expect(failed.count == 3, "the bulk, its error report and its (empty) results: \(failed)")
            #expect(try fileNames(in: spool, "active") == [])
        }
    }

    @Test("the ids of a done bulk's acknowledged lines can be read back, for `after` lists of later runs")
    func acknowledgedLineIDs() async throws {
        try await withSpool { spool in
            try spool.enqueueBulk([JobFile(kind: "noop", id: "first"), JobFile(kind: "noop"), JobFile(kind: "noop", id: "third")])
            let lines = try claimAll(spool)
            try spool.complete(lines[0], report: report(1))
            try spool.complete(lines[1], report: report(2))
            try spool.fail(lines[2], report: report(3))
            let done = try #require(try spool.entries(.done).first)
            #expect(try spool.acknowledgedLineIDs(of: done) == ["first"])
        }
    }

    @Test("a bulk failed whole (cancelled) keeps its acknowledged lines acknowledged, for `after` lists of later runs")
    func acknowledgedLineIDsOfABulkFailedWhole() async throws {
        try await withSpool { spool in
            try spool.enqueueBulk([JobFile(kind: "noop", id: "first"), JobFile(kind: "noop", id: "second")])
            let lines = try claimAll(spool)
            try spool.complete(lines[0], report: report(1))
            try spool.release(lines[1])
            let queued = try #require(try spool.entries(.queued).first)
            let failed = try spool.cancel(queued)
            #expect(failed.isBulk && failed.state == .failed)
            #expect(try spool.acknowledgedLineIDs(of: failed) == ["first"])
        }
    }

    @Test("the lines of an unfinished bulk that an earlier run settled are read from its ledger, a failed one with its report even when a crash kept it out of failed/")
    func settledLinesOfAnUnfinishedBulk() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk([
                JobFile(kind: "noop", id: "first"), JobFile(kind: "noop"), JobFile(kind: "noop", id: "third"),
                JobFile(kind: "noop", id: "fourth"),
            ])
            let lines = try claimAll(spool)
            try spool.complete(lines[0], report: report(1))
            try spool.complete(lines[1], report: report(2))
            let failure = JobFailureReport(
                name: lines[2].name, id: "third", kind: "noop", reason: "the third line's own reason", attempts: 1,
                retryable: false, startedAt: nil, finishedAt: Date())
            try spool.fail(lines[2], report: failure)
            for name in try fileNames(in: spool, "failed") {
                try FileManager.default.removeItem(at: spool.root.appending(path: "failed").appending(path: name))
            }
            // The daemon dies here, line 4 running; the next one recovers the bulk into new/.
            let restarted = try SpoolDirectory(root: spool.root, durability: .none)
            try restarted.recoverActive()

            let unfinished = try restarted.unfinishedBulks { _, _ in false }
            #expect(unfinished.map(\.name) == [entry.name] && unfinished.map(\.state) == [.queued])
            let queued = try #require(unfinished.first)
            func expectSettled(_ settled: [SettledBulkLine]) {
                #expect(settled.map(\.number) == [1, 3] && settled.map(\.id) == ["first", "third"])
                #expect(settled.first?.outcome == .done)
                if case let .failed(report)? = settled.last?.outcome {
                    #expect(report?.reason == "the third line's own reason")
                } else {
                    Issue.record("line 3 is not failed: \(settled)")
                }
            }
            expectSettled(try restarted.settledLines(of: queued))
            #expect(try restarted.acknowledgedLineIDs(of: queued) == ["first"])
            #expect(try restarted.unfinishedBulks { $0 == queued.name && $1 == queued.claim }.isEmpty, "read already")

            // An entry being appended is skipped, and left as it is.
            let ledger = try #require(try fileNames(in: restarted, "active").first { $0.hasSuffix(".ledger.jsonl") })
            let ledgerURL = restarted.root.appending(path: "active").appending(path: ledger)
            let handle = try FileHandle(forWritingTo: ledgerURL)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{\"line\":4,\"outcome\":\"do".utf8))
            try handle.close()
            let size = try Data(contentsOf: ledgerURL).count
            expectSettled(try restarted.settledLines(of: queued))
            #expect(try Data(contentsOf: ledgerURL).count == size)

            // Claimed again, the bulk is read from active/.
            #expect(try claimAll(restarted).map { $0.bulkLine?.number } == [4])
            let claimed = try restarted.unfinishedBulks { _, _ in false }
            #expect(claimed.map(\.name) == [entry.name] && claimed.map(\.state) == [.running])
            expectSettled(try restarted.settledLines(of: try #require(claimed.first)))
        }
    }

    @Test("a bulk never claimed has no line settled, and is not listed among the unfinished bulks with a ledger")
    func settledLinesOfABulkNeverClaimed() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueueBulk([JobFile(kind: "noop", id: "first")])
            #expect(try spool.settledLines(of: entry).isEmpty)
            #expect(try spool.unfinishedBulks { _, _ in false }.isEmpty)
        }
    }

    @Test("the spool's listings count a bulk as one queued file")
    func listings() async throws {
        try await withSpool { spool in
            try spool.enqueueBulk([JobFile(kind: "noop"), JobFile(kind: "noop")])
            #expect(try spool.counts().queued == 1)
            #expect(try spool.unrecognizedQueueEntries() == [])
        }
    }
}

extension ClaimedJob {
    /// The claim in the file name: a line's is its bulk's.
    var jobFileClaim: String? {
        fileName.split(separator: ".").first { $0.hasPrefix("c") && $0.count == 13 }.map { String($0.dropFirst()) }
    }
}
