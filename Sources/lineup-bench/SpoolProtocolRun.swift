import Foundation
import Synchronization

/// What DESIGN §3's protocol costs on this disk without a runner: the file operations a job's
/// trip takes, and nothing else, done by one thread beside a producer.
///
/// A producer thread enqueues as `lineup enqueue` does (create the file in `tmp/`, write it,
/// rename it into `new/`); this thread then does what the daemon must do with each job: claim
/// it (rename into `active/`), read it, and write its result report into `tmp/`; every
/// ``fileGroup`` jobs it files the group in `done/`, reports first, then job files (four
/// renames a job in all). No JSON, no queue, no store. That is three creates-or-opens and four
/// renames a job against the bare baseline's one and two.
///
/// It is the protocol's cost, not a bound on the daemon: the daemon claims on one thread,
/// writes reports on its tasks' threads and files on a third, so when the machine's cores are
/// free it can pass this one thread, and when they are not it falls further below it.
///
/// With fsync it syncs what the daemon must: each job file before its rename and `new/` after
/// it (the enqueue), each report before it may be filed, and per group the claims (`new/` and
/// `active/`), then `done/` after the reports and again after the job files. So a job costs
/// three syncs of its own, where the bare baseline's costs two.
struct SpoolProtocolRun {
    /// Jobs filed together, as the bare baseline syncs `done/` once per 1,000 renames.
    static let fileGroup = 1_000

    let jobs: Int
    let fsync: Bool
    let contents: [UInt8]
    let report: [UInt8]
    let directory: URL

    func run() throws -> BareSpoolResult {
        let spool = Directories(root: directory.appendingPathComponent("protocol-spool", isDirectory: true).path)
        let (tmp, new, active) = (spool.tmp, spool.new, spool.active)
        for path in [spool.root, tmp, new, active, spool.done] {
            guard mkdir(path, 0o755) == 0 else { throw BenchError.systemCall("mkdir", path) }
        }
        let stems = (0..<jobs).map { index in
            "proto-\(String(repeating: "0", count: max(0, 9 - String(index).count)))\(index)-0000000000000000000000000000"
        }
        let names = stems.map { $0 + ".job.json" }
        let reportNames = stems.map { $0 + ".result.json" }
        let handoff = Handoff()
        let producerDone = DispatchSemaphore(value: 0)
        let sync = fsync

        let started = MonotonicClock.now()
        let producer = Thread { [contents] in
            defer { producerDone.signal() }
            for name in names {
                do {
                    try Self.writeFile(tmp + "/" + name, contents, sync: sync)
                    guard rename(tmp + "/" + name, new + "/" + name) == 0 else { throw BenchError.systemCall("rename", tmp + "/" + name) }
                    if sync { try Self.syncDirectory(new) }
                } catch {
                    handoff.failure.withLock { $0 = error as? BenchError }
                    handoff.produced.store(Int.max, ordering: .releasing)
                    return
                }
                handoff.produced.add(1, ordering: .releasing)
            }
        }
        producer.start()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var firstUnfiled = 0
        for (index, name) in names.enumerated() {
            while handoff.produced.load(ordering: .acquiring) <= index {
                sched_yield()
            }
            if let failure = handoff.failure.withLock({ $0 }) { throw failure }
            let claimed = active + "/" + name
            guard rename(new + "/" + name, claimed) == 0 else { throw BenchError.systemCall("rename", new + "/" + name) }
            let descriptor = open(claimed, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw BenchError.systemCall("open", claimed) }
            let read = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard read == contents.count else { throw BenchError.systemCall("read", claimed) }
            try Self.writeFile(tmp + "/" + reportNames[index], report, sync: sync)
            if index + 1 - firstUnfiled == Self.fileGroup || index == names.count - 1 {
                try file(firstUnfiled...index, names: names, reportNames: reportNames, in: spool)
                firstUnfiled = index + 1
            }
        }
        let elapsed = MonotonicClock.now() - started
        producerDone.wait()
        return BareSpoolResult(jobs: jobs, elapsed: elapsed)
    }

    /// The spool's directories.
    private struct Directories {
        let root: String
        var tmp: String { root + "/tmp" }
        var new: String { root + "/new" }
        var active: String { root + "/active" }
        var done: String { root + "/done" }
    }

    /// Files a group of claimed jobs whose reports are in `tmp/`, in the protocol's order.
    private func file(_ group: ClosedRange<Int>, names: [String], reportNames: [String], in spool: Directories) throws {
        let (tmp, new, active, done) = (spool.tmp, spool.new, spool.active, spool.done)
        if fsync {
            try Self.syncDirectory(new)
            try Self.syncDirectory(active)
        }
        for index in group {
            guard rename(tmp + "/" + reportNames[index], done + "/" + reportNames[index]) == 0 else {
                throw BenchError.systemCall("rename", tmp + "/" + reportNames[index])
            }
        }
        if fsync { try Self.syncDirectory(done) }
        for index in group {
            guard rename(active + "/" + names[index], done + "/" + names[index]) == 0 else {
                throw BenchError.systemCall("rename", active + "/" + names[index])
            }
        }
        if fsync { try Self.syncDirectory(done) }
    }

    /// What the producer thread tells this one: how many jobs are in `new/`, or why it stopped.
    private final class Handoff: Sendable {
        let produced = Atomic<Int>(0)
        let failure = Mutex<BenchError?>(nil)
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.systemCall("open", path) }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw BenchError.systemCall("write", path) }
        if sync, Foundation.fsync(descriptor) != 0 { throw BenchError.systemCall("fsync", path) }
    }

    private static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchError.systemCall("open", path) }
        defer { close(descriptor) }
        guard Foundation.fsync(descriptor) == 0 else { throw BenchError.systemCall("fsync", path) }
    }
}
