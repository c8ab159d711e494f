import Foundation
import LineupSpool
import Testing

@Suite("Enqueue and claim")
struct EnqueueClaimTests {
    @Test("opening a spool creates its five directories")
    func createsLayout() async throws {
        try await withTemporaryDirectory { directory in
            let root = directory.appending(path: "a/spool")
            try FileManager.default.createDirectory(at: directory.appending(path: "a"), withIntermediateDirectories: true)
            let spool = try SpoolDirectory(root: root, durability: .none)
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == [
                "active", "done", "failed", "new", "tmp",
            ])
            // Opening it again keeps what is there.
            try spool.enqueue(JobFile(kind: "statistics"))
            _ = try SpoolDirectory(root: root)
            #expect(try spool.counts() == JobCounts(queued: 1, running: 0, done: 0, failed: 0))
        }
    }

    @Test("a spool root that is a file is refused")
    func rootIsAFile() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appending(path: "file")
            try write("x", to: file)
            let error = try #require(throws: SpoolError.self) { try SpoolDirectory(root: file) }
            #expect(error.code == .io)
            #expect(error.description == "\(file.path): exists but is not a directory")
        }
    }

    @Test("enqueue leaves the encoded job in new/ under a time-ordered job name and nothing in tmp/")
    func enqueueWritesIntoNew() async throws {
        try await withSpool { spool in
            let job = try JobFile(kind: "export-csv", parameters: ["entity": "JournalEntry", "output": "journal.csv"])
            let entry = try spool.enqueue(job)
            #expect(entry.state == .queued)
            #expect(entry.interruptions == 0)
            #expect(entry.fileName == entry.name + ".job.json")
            #expect(entry.url == spool.directory(.queued).appending(path: entry.fileName))
            #expect(try fileNames(in: spool, "new") == [entry.fileName])
            #expect(try fileNames(in: spool, "tmp") == [])
            #expect(try Data(contentsOf: entry.url) == job.encoded())
            // <UTC time with microseconds>-<pid>-<token>-<counter>
            let parts = entry.name.split(separator: "-")
            #expect(parts.count == 4)
            #expect(parts[0].count == 23)
            #expect(parts[0].hasSuffix("Z"))
            #expect(parts[1] == "\(ProcessInfo.processInfo.processIdentifier)")
        }
    }

    @Test("the fsync durability writes the same files")
    func fsyncDurability() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory.appending(path: "spool"))
            #expect(spool.durability == .fsync)
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            let claimed = try #require(try spool.claimNext())
            try spool.complete(claimed, report: Data("{}".utf8))
            #expect(claimed.name == entry.name)
            #expect(try fileNames(in: spool, "done") == [claimed.fileName, claimed.stem + ".result.json"])
        }
    }

    @Test("names sort in enqueue order and are unique")
    func namesSortInEnqueueOrder() async throws {
        try await withSpool { spool in
            var names: [String] = []
            for _ in 0..<1000 {
                names.append(try spool.enqueue(contents: jobData(#"{"kind":"statistics"}"#)).fileName)
            }
            #expect(names == names.sorted())
            #expect(Set(names).count == 1000)
        }
    }

    @Test("jobs are claimed first in, first out, then nil")
    func claimsInOrder() async throws {
        try await withSpool { spool in
            var enqueued: [String] = []
            for index in 0..<50 {
                enqueued.append(try spool.enqueue(JobFile(kind: "statistics", parameters: ["n": .integer(index)])).name)
            }
            var claimed: [String] = []
            while let job = try spool.claimNext() {
                claimed.append(job.name)
                #expect(try job.decodeJobFile().parameters == ["n": .integer(claimed.count - 1)])
            }
            #expect(claimed == enqueued)
            #expect(try fileNames(in: spool, "new") == [])
            #expect(try spool.counts() == JobCounts(queued: 0, running: 50, done: 0, failed: 0))
        }
    }

    @Test("a claimed job carries its file, bytes and claim time")
    func claimedJobContents() async throws {
        try await withSpool { spool in
            let data = jobData(#"{"kind": "import-buoy", "input": "obs/42002.rss"}"#)
            let entry = try spool.enqueue(contents: data)
            let before = Date()
            let job = try #require(try spool.claimNext())
            #expect(job.name == entry.name)
            #expect(job.fileName == entry.name + ".c" + job.claim + ".job.json")
            #expect(job.claim.count == 12 && job.claim.allSatisfy(\.isHexDigit))
            #expect(job.enqueuedFileName == entry.fileName)
            #expect(job.url == spool.directory(.running).appending(path: job.fileName))
            #expect(job.contents == data)
            #expect(job.interruptions == 0)
            #expect(job.claimedAt >= before)
            #expect(try job.decodeJobFile().kind == "import-buoy")
            #expect(try fileNames(in: spool, "active") == [job.fileName])
        }
    }

    @Test("jobs enqueued after the queue ran dry are claimed by the next call")
    func seesLaterJobs() async throws {
        try await withSpool { spool in
            try spool.enqueue(JobFile(kind: "a"))
            #expect(try spool.claimNext()?.decodeJobFile().kind == "a")
            #expect(try spool.claimNext() == nil)
            let later = try spool.enqueue(JobFile(kind: "b"))
            #expect(try spool.claimNext()?.name == later.name)
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test("a job enqueued by another instance is seen once this instance's listing is used up")
    func seesOtherProducers() async throws {
        try await withSpool { spool in
            let producer = try SpoolDirectory(root: spool.root, durability: .none)
            let first = try producer.enqueue(JobFile(kind: "a"))
            let second = try producer.enqueue(JobFile(kind: "b"))
            #expect(try spool.claimNext()?.name == first.name)
            let third = try producer.enqueue(JobFile(kind: "c"))
            #expect(try spool.claimNext()?.name == second.name)
            #expect(try spool.claimNext()?.name == third.name)
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test("entries that do not look like jobs are ignored and listed as unrecognized")
    func ignoresOtherFiles() async throws {
        try await withSpool { spool in
            let new = spool.directory(.queued)
            for name in [".hidden.job.json", ".job.json.swp", "notes.txt", "stats.json", "x.job.json~", ".job.json"] {
                try write(#"{"kind":"statistics"}"#, to: new.appending(path: name))
            }
            try FileManager.default.createDirectory(at: new.appending(path: "dir.job.json"), withIntermediateDirectories: false)
            #expect(try spool.claimNext() == nil)
            #expect(try spool.counts().queued == 0)
            #expect(try spool.unrecognizedQueueEntries() == ["notes.txt", "stats.json", "x.job.json~"])
            let entry = try spool.enqueue(JobFile(kind: "statistics"))
            #expect(try spool.claimNext()?.name == entry.name)
        }
    }

    @Test("a hand-written job file with any name is claimed in name order")
    func handWrittenJobs() async throws {
        try await withSpool { spool in
            let tmp = spool.root.appending(path: "tmp")
            for name in ["b-second", "a-first"] {
                try write(#"{"kind":"statistics"}"#, to: tmp.appending(path: name + ".job.json"))
                try FileManager.default.moveItem(
                    at: tmp.appending(path: name + ".job.json"),
                    to: spool.directory(.queued).appending(path: name + ".job.json")
                )
            }
            #expect(try spool.claimNext()?.name == "a-first")
            #expect(try spool.claimNext()?.name == "b-second")
        }
    }

    @Test("a job file that is not JSON is still claimed, and decoding it says why it fails")
    func claimsInvalidFiles() async throws {
        try await withSpool { spool in
            let entry = try spool.enqueue(contents: jobData("kind: statistics"))
            let job = try #require(try spool.claimNext())
            #expect(job.name == entry.name)
            let error = try #require(throws: SpoolError.self) { try job.decodeJobFile() }
            #expect(error.code == .malformedJobFile)
            #expect(error.path == job.url.path)
            #expect(error.description.hasPrefix("\(job.url.path): job file is not valid JSON: "))
        }
    }

    @Test("a job file over the size limit is claimed but not read")
    func refusesHugeFiles() async throws {
        try await withSpool { spool in
            let size = SpoolDirectory.maximumJobFileSize + 1
            try spool.enqueue(contents: Data(repeating: UInt8(ascii: " "), count: size))
            let job = try #require(try spool.claimNext())
            #expect(job.contents.isEmpty)
            let error = try #require(throws: SpoolError.self) { try job.decodeJobFile() }
            #expect(error.code == .malformedJobFile)
            #expect(error.description == "\(job.url.path): job file is \(size) bytes, more than the limit of 1048576")
        }
    }

    @Test("claiming by name takes that job once")
    func claimsByName() async throws {
        try await withSpool { spool in
            let first = try spool.enqueue(JobFile(kind: "a"))
            let second = try spool.enqueue(JobFile(kind: "b"))
            #expect(try spool.claim(fileName: second.fileName)?.name == second.name)
            #expect(try spool.claim(fileName: second.fileName) == nil)
            #expect(try spool.claimNext()?.name == first.name)
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test("claiming a name that is not a job file name is a mistake", arguments: ["notes.txt", "../x.job.json", ".x.job.json"])
    func claimRefusesOtherNames(name: String) async throws {
        try await withSpool { spool in
            let error = try #require(throws: SpoolError.self) { try spool.claim(fileName: name) }
            #expect(error.code == .invalidPath)
            #expect(error.description == "\(name): is not the name of a job file (<name>.job.json)")
        }
    }

    @Test("threads racing with their own spool instances claim each of 500 jobs exactly once")
    func racingInstances() async throws {
        try await withSpool { spool in
            let enqueued = try (0..<500).map { _ in try spool.enqueue(JobFile(kind: "statistics")).name }
            let claimers = try (0..<4).map { _ in try SpoolDirectory(root: spool.root, durability: .none) }
            let claimed = Collector<String>()
            let failures = Collector<String>()
            runOnThreads(claimers.count) { index in
                do {
                    while let job = try claimers[index].claimNext() {
                        claimed.append(job.name)
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all == [])
            #expect(claimed.all.count == 500)
            #expect(claimed.all.sorted() == enqueued)
            #expect(try spool.counts() == JobCounts(queued: 0, running: 500, done: 0, failed: 0))
        }
    }

    @Test("threads sharing one spool instance claim each of 500 jobs exactly once")
    func racingThreads() async throws {
        try await withSpool { spool in
            let enqueued = try (0..<500).map { _ in try spool.enqueue(JobFile(kind: "statistics")).name }
            let claimed = Collector<String>()
            let failures = Collector<String>()
            runOnThreads(3) { _ in
                do {
                    while let job = try spool.claimNext() {
                        claimed.append(job.name)
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all == [])
            #expect(claimed.all.count == 500)
            #expect(claimed.all.sorted() == enqueued)
        }
    }

    @Test("producers and claimers running at once lose and duplicate nothing")
    func producersAndClaimers() async throws {
        try await withSpool { spool in
            let produced = Collector<String>()
            let claimed = Collector<String>()
            let failures = Collector<String>()
            let producersDone = Collector<Bool>()
            runOnThreads(4) { index in
                do {
                    if index < 2 {
                        let producer = try SpoolDirectory(root: spool.root, durability: .none)
                        for _ in 0..<250 {
                            produced.append(try producer.enqueue(JobFile(kind: "statistics")).name)
                        }
                        producersDone.append(true)
                    } else {
                        let claimer = try SpoolDirectory(root: spool.root, durability: .none)
                        while true {
                            let finished = producersDone.all.count == 2
                            if let job = try claimer.claimNext() {
                                claimed.append(job.name)
                            } else if finished {
                                break
                            }
                        }
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all == [])
            #expect(Set(produced.all).count == 500)
            #expect(claimed.all.count == 500)
            #expect(claimed.all.sorted() == produced.all.sorted())
        }
    }
}
