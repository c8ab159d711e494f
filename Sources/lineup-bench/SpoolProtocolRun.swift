import Foundation
import Synchronization

/// The ceiling of a spool that keeps DESIGN §3's protocol, measured without a runner: the file
/// operations a job's trip takes, and nothing else.
///
/// A producer thread enqueues as `lineup enqueue` does (create the file in `tmp/`, write it,
/// rename it into `new/`); this thread then does what the daemon must do with each job: claim
/// it (rename into `active/`), read it, write its result report into `tmp/`, and file both in
/// `done/` (two renames). Unsynced; no JSON, no queue, no store. That is three creates-or-opens
/// and four renames a job against the bare baseline's one and two, so the daemon's throughput
/// can come near this figure but not pass it, whatever the runner costs.
struct SpoolProtocolRun {
    let jobs: Int
    let contents: [UInt8]
    let report: [UInt8]
    let directory: URL

    func run() throws -> BareSpoolResult {
        let root = directory.appendingPathComponent("protocol-spool", isDirectory: true).path
        let (tmp, new, active, done) = (root + "/tmp", root + "/new", root + "/active", root + "/done")
        for path in [root, tmp, new, active, done] {
            guard mkdir(path, 0o755) == 0 else { throw Self.systemError("mkdir", path) }
        }
        let stems = (0..<jobs).map { index in
            "proto-\(String(repeating: "0", count: max(0, 9 - String(index).count)))\(index)-0000000000000000000000000000"
        }
        let names = stems.map { $0 + ".job.json" }
        let reportNames = stems.map { $0 + ".result.json" }
        let handoff = Handoff()
        let producerDone = DispatchSemaphore(value: 0)

        let started = MonotonicClock.now()
        let producer = Thread { [contents] in
            defer { producerDone.signal() }
            for name in names {
                do {
                    try Self.writeFile(tmp + "/" + name, contents)
                    guard rename(tmp + "/" + name, new + "/" + name) == 0 else { throw Self.systemError("rename", tmp + "/" + name) }
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
        for (index, name) in names.enumerated() {
            while handoff.produced.load(ordering: .acquiring) <= index {
                sched_yield()
            }
            if let failure = handoff.failure.withLock({ $0 }) { throw failure }
            let claimed = active + "/" + name
            guard rename(new + "/" + name, claimed) == 0 else { throw Self.systemError("rename", new + "/" + name) }
            let descriptor = open(claimed, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.systemError("open", claimed) }
            let read = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard read == contents.count else { throw Self.systemError("read", claimed) }
            let reportName = reportNames[index]
            try Self.writeFile(tmp + "/" + reportName, report)
            guard rename(claimed, done + "/" + name) == 0 else { throw Self.systemError("rename", claimed) }
            guard rename(tmp + "/" + reportName, done + "/" + reportName) == 0 else {
                throw Self.systemError("rename", tmp + "/" + reportName)
            }
        }
        let elapsed = MonotonicClock.now() - started
        producerDone.wait()
        return BareSpoolResult(jobs: jobs, elapsed: elapsed)
    }

    /// What the producer thread tells this one: how many jobs are in `new/`, or why it stopped.
    private final class Handoff: Sendable {
        let produced = Atomic<Int>(0)
        let failure = Mutex<BenchError?>(nil)
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw systemError("open", path) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { throw systemError("write", path) }
    }

    private static func systemError(_ call: String, _ path: String) -> BenchError {
        BenchError(.verification, "\(path): \(call) failed: \(String(cString: strerror(errno)))")
    }
}
