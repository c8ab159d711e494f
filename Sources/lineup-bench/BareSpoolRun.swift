import Foundation

/// What the bare filesystem baseline of the spool benchmark measured.
struct BareSpoolResult {
    let jobs: Int
    let elapsed: UInt64
    var jobsPerSecond: Double { Double(jobs) / MonotonicClock.seconds(elapsed) }
}

/// The spool benchmark's baseline: the file operations a job's trip through a spool cannot do
/// without, with no runner: create the job file in `tmp/` and write the same bytes, rename it
/// into `new/`, rename it into `done/`. One thread, job after job.
///
/// With fsync it syncs what an enqueue must (the file before its rename, then `new/`) and
/// `done/` once per 1,000 renames and at the end (a group commit, as the daemon's flush does);
/// it writes no result report, so it is the limit of the disk, not a rival spool.
struct BareSpoolRun {
    let jobs: Int
    let fsync: Bool
    let contents: [UInt8]
    let directory: URL

    private static let doneSyncGroup = 1_000

    func run() throws -> BareSpoolResult {
        let root = directory.appendingPathComponent("bare-spool", isDirectory: true).path
        let tmp = root + "/tmp"
        let new = root + "/new"
        let done = root + "/done"
        for path in [root, tmp, new, done] {
            guard mkdir(path, 0o755) == 0 else { throw BenchError.systemCall("mkdir", path) }
        }
        let newDescriptor = open(new, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let doneDescriptor = open(done, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer {
            close(newDescriptor)
            close(doneDescriptor)
        }
        guard newDescriptor >= 0, doneDescriptor >= 0 else { throw BenchError.systemCall("open", root) }

        let started = MonotonicClock.now()
        for index in 0..<jobs {
            // Names as long as the spool's (`20261122T193512.123456Z-4242-0a1b2c-17.job.json`).
            let name = "bare-\(String(repeating: "0", count: max(0, 9 - String(index).count)))\(index)-0000000000000000000000000000.job.json"
            let temporary = tmp + "/" + name
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw BenchError.systemCall("open", temporary) }
            let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == contents.count else {
                close(descriptor)
                throw BenchError.systemCall("write", temporary)
            }
            if fsync, Foundation.fsync(descriptor) != 0 {
                close(descriptor)
                throw BenchError.systemCall("fsync", temporary)
            }
            guard close(descriptor) == 0 else { throw BenchError.systemCall("close", temporary) }
            guard rename(temporary, new + "/" + name) == 0 else { throw BenchError.systemCall("rename", temporary) }
            if fsync, Foundation.fsync(newDescriptor) != 0 { throw BenchError.systemCall("fsync", new) }
            guard rename(new + "/" + name, done + "/" + name) == 0 else { throw BenchError.systemCall("rename", new + "/" + name) }
            if fsync, (index + 1) % Self.doneSyncGroup == 0, Foundation.fsync(doneDescriptor) != 0 {
                throw BenchError.systemCall("fsync", done)
            }
        }
        if fsync, Foundation.fsync(doneDescriptor) != 0 { throw BenchError.systemCall("fsync", done) }
        let elapsed = MonotonicClock.now() - started
        return BareSpoolResult(jobs: jobs, elapsed: elapsed)
    }
}
