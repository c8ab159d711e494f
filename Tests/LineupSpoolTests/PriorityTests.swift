import Foundation
@testable import LineupSpool
import Testing

/// `priority`: `new/` is claimed by priority (0 first, 9 last, 5 when a file says none), then in
/// enqueue order; the priority rides in the file name, so that the order costs no read.
@Suite("Priorities")
struct PriorityTests {
    /// A job file with `id` and, when given, `priority`, as a producer writes it.
    private func job(_ id: String, priority: Int? = nil) throws -> JobFile {
        let field = priority.map { #", "priority": \#($0)"# } ?? ""
        return try JobFile(data: Data(#"{"kind": "statistics", "id": "\#(id)"\#(field)}"#.utf8))
    }

    private func claimedIDs(_ spool: SpoolDirectory) throws -> [String?] {
        var ids: [String?] = []
        while let claimed = try spool.claimNext() {
            ids.append(try claimed.decodeJobFile().id)
        }
        return ids
    }

    @Test("new/ is claimed by priority, 0 first, and first in, first out within a priority")
    func claimOrder() async throws {
        try await withSpool { spool in
            for (id, priority) in [("a", nil), ("b", 9), ("c", 0), ("d", nil), ("e", 0), ("f", 2), ("g", 5), ("h", 7)] {
                try spool.enqueue(job(id, priority: priority))
            }
            #expect(try claimedIDs(spool) == ["c", "e", "f", "a", "d", "g", "h", "b"])
        }
    }

    @Test("a job enqueued after a listing of new/ is claimed in its priority's place once new/ is listed again")
    func laterEnqueue() async throws {
        try await withSpool { spool in
            try spool.enqueue(job("first"))
            #expect(try spool.claimNext().map { try $0.decodeJobFile().id } == "first")
            try spool.enqueue(job("ordinary"))
            try spool.enqueue(job("urgent", priority: 0))
            // The last listing is used up, so new/ is listed again, in priority order.
            #expect(try claimedIDs(spool) == ["urgent", "ordinary"])
        }
    }

    @Test("an urgent job that another producer enqueues while a listing is being claimed from is claimed next, once the watcher saw it")
    func urgentArrival() async throws {
        try await withSpool { spool in
            for id in ["a", "b", "c"] {
                try spool.enqueue(job(id))
            }
            let stream = HintStream()
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600), hint: stream.takeHandler())
            defer { watcher.stop() }
            #expect(watcher.usesInotify)
            var hints = stream.hints.makeAsyncIterator()
            _ = await hints.next()  // the start-up hint
            #expect(try spool.claimNext().map { try $0.decodeJobFile().id } == "a")
            // Another process's spool: only the watcher tells this one.
            let producer = try SpoolDirectory(root: spool.root, durability: .none)
            try producer.enqueue(job("urgent", priority: 1))
            _ = await hints.next()
            try await Task.sleep(for: SpoolDirectory.outrankedRelistSpacing + .milliseconds(50))
            #expect(try claimedIDs(spool) == ["urgent", "b", "c"])
        }
    }

    @Test("the priority is a tag of the file name, kept when the job is released; the default has none")
    func fileName() async throws {
        try await withSpool { spool in
            let urgent = try spool.enqueue(job("urgent", priority: 0))
            let ordinary = try spool.enqueue(job("ordinary"))
            let explicit = try spool.enqueue(job("explicit", priority: 5))
            #expect(urgent.fileName.hasSuffix(".p0.job.json"), "\(urgent.fileName)")
            #expect(urgent.priority == 0 && ordinary.priority == 5 && explicit.priority == 5)
            #expect(!ordinary.fileName.contains(".p") && !explicit.fileName.contains(".p"), "\(ordinary.fileName) \(explicit.fileName)")

            let claimed = try #require(try spool.claimNext())
            #expect(claimed.fileName.contains(".p0.c"), "\(claimed.fileName)")
            try spool.release(claimed)
            let queued = try spool.entries(.queued)
            #expect(queued.map(\.priority).sorted() == [0, 5, 5])
            #expect(try claimedIDs(spool) == ["urgent", "ordinary", "explicit"])
        }
    }

    @Test("a file written into new/ by hand with a priority tag is claimed in its place without being read first")
    func handWrittenTag() async throws {
        try await withSpool { spool in
            try spool.enqueue(job("enqueued"))
            try write(#"{"kind": "statistics", "id": "by-hand"}"#, to: spool.directory(.queued).appending(path: "zzz.p1.job.json"))
            #expect(try claimedIDs(spool) == ["by-hand", "enqueued"])
        }
    }

    @Test("JobOptions carry priority, queue and uniqueFor into the job file")
    func options() throws {
        let file = try JobFile(
            kind: "statistics", parameters: ["output": "stats"],
            options: JobOptions(uniqueKey: "daily", priority: 1, queue: "reports", uniqueFor: .seconds(3600)))
        #expect(file.priority == 1 && file.queue == "reports" && file.uniqueFor == .seconds(3600))
        #expect(file.parameters == ["output": "stats"])
        #expect(String(decoding: try file.encoded(), as: UTF8.self)
            == #"{"kind":"statistics","output":"stats","priority":1,"queue":"reports","uniqueFor":3600,"uniqueKey":"daily"}"#)
        let plain = try JobFile(kind: "statistics", parameters: [:], options: JobOptions())
        #expect(plain.priority == JobFile.defaultPriority && plain.queue == nil && plain.uniqueFor == nil)
    }

    @Test("a job file's priority must be 0 to 9, its queue a name, and uniqueFor a duration beside a uniqueKey")
    func validation() throws {
        func error(_ text: String) -> String? {
            do {
                _ = try JobFile(data: Data(text.utf8))
                return nil
            } catch {
                return error.code == .invalidField ? error.message : "\(error.code): \(error.message)"
            }
        }
        #expect(error(#"{"kind": "k", "priority": 10}"#) == "field `priority` must be from 0 to 9, found 10")
        #expect(error(#"{"kind": "k", "priority": -1}"#) == "field `priority` must be from 0 to 9, found -1")
        #expect(error(#"{"kind": "k", "priority": "high"}"#) == "field `priority` must be an integer, found a string")
        #expect(error(#"{"kind": "k", "queue": ""}"#) == "field `queue` must not be empty")
        #expect(error(#"{"kind": "k", "uniqueFor": "1h"}"#)?.contains("needs a `uniqueKey`") == true)
        #expect(error(#"{"kind": "k", "uniqueKey": "u", "uniqueFor": "soon"}"#)?.contains("a duration such as") == true)
        #expect(error(#"{"kind": "k", "uniqueKey": "u", "uniqueFor": 0}"#)?.contains("above 0 s") == true)
        #expect(try JobFile(data: Data(#"{"kind": "k", "uniqueKey": "u", "uniqueFor": "1h"}"#.utf8)).uniqueFor == .seconds(3600))
        #expect(try JobFile(data: Data(#"{"kind": "k", "uniqueKey": "u", "uniqueFor": "90s"}"#.utf8)).uniqueFor == .seconds(90))
        #expect(try JobFile(data: Data(#"{"kind": "k", "uniqueKey": "u", "uniqueFor": 7.5}"#.utf8)).uniqueFor == .milliseconds(7500))
        #expect(try JobFile(data: Data(#"{"kind": "k", "priority": 0, "queue": "q"}"#.utf8)).parameters.isEmpty)
        // A kind's parameters may not take the names.
        for name in ["priority", "queue", "uniqueFor"] {
            #expect(throws: SpoolError.self) { try JobFile(kind: "k", parameters: [name: 1]) }
        }
    }
}
