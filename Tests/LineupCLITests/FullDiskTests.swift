import BuoyXML
import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// The spool and the store on a small `tmpfs` that the test fills: during an enqueue, during
    /// a report write and during flushes. Nothing is acknowledged while flushes fail, claiming
    /// pauses, `lineup status` says why, and once space returns every job ends in `done/`
    /// exactly once with its rows on disk. Flushes that fail for longer than
    /// `flushFailureTimeout` stop the daemon with an error, leaving the job for the next start.
    @Suite("A full disk")
    struct FullDiskTests {
        static let jobCount = 5
        static let observationsPerJob = 20_000

        @Test("a full disk: no acknowledgement, claiming paused, everything done exactly once when space returns")
        func fullDisk() async throws {
            try await withSandbox { sandbox in
                let disk = try SmallFileSystem(at: sandbox.root.appending(path: "small"), megabytes: 64)
                defer { disk.unmount() }
                let store = disk.root.appending(path: "store.sqlite")
                let spool = disk.root.appending(path: "spool")
                var expected: [String: Int] = [:]
                for number in 0..<(Self.jobCount + 1) {
                    let records = BuoyFixtures.records(station: "FD0\(number)", seed: UInt64(number + 1), count: Self.observationsPerJob)
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "full-\(number).xml"))
                    expected["FD0\(number)"] = Self.observationsPerJob
                }
                let configuration = sandbox.root.appending(path: "lineupd.json")
                func configure(flushFailureTimeout: Double) throws {
                    try Data(
                        #"{"flushInterval": 3600, "statusInterval": 3600, "concurrency": 1, "claimWindow": 1, "flushBacklogLimit": 2, "flushFailureTimeout": \#(flushFailureTimeout)}"#
                            .utf8
                    ).write(to: configuration)
                }
                try configure(flushFailureTimeout: 600)
                let arguments = [
                    "--store", store.path, "--spool", spool.path, "--input", sandbox.input.path, "--output",
                    sandbox.output.path, "--config", configuration.path,
                ]
                func launch() async throws -> ChildProcess {
                    let before = sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count
                    let daemon = try sandbox.launch(Binaries.lineupd, arguments, logName: "lineupd")
                    try await sandbox.poll("lineupd to start", daemon: daemon) {
                        guard daemon.isRunning else { throw HarnessError("lineupd exited: \(daemon.logTail())") }
                        return sandbox.daemonLog.components(separatedBy: Sandbox.startedLine).count > before
                    }
                    // The first status.json is written just after that line: wait for it, so that
                    // the disk is filled around an idle daemon (a slow one, under ThreadSanitizer,
                    // wrote it into the room made for the job files).
                    try await sandbox.poll("lineupd to write its first status", daemon: daemon) {
                        FileManager.default.fileExists(atPath: spool.appending(path: "status.json").path)
                    }
                    return daemon
                }
                func enqueue(_ number: Int) async throws -> CommandResult {
                    try await sandbox.lineup([
                        "enqueue", "import-buoy", "input=full-\(number).xml", "--id", "full-\(number)", "--spool", spool.path,
                    ])
                }
                func jobFiles(_ directory: String) throws -> [String] {
                    try FileManager.default.contentsOfDirectory(atPath: spool.appending(path: directory).path)
                        .filter { $0.hasSuffix(".job.json") }
                }
                func log(_ text: String) -> Int { sandbox.daemonLog.components(separatedBy: text).count - 1 }

                var daemon = try await launch()
                // Everything but a reserve for the job files, which the daemon (idle: no flush or
                // status write is due) leaves alone until the jobs arrive.
                let reserve = try disk.reserve(pages: 32)
                try disk.fill()

                // An enqueue on the full disk fails, naming the file and the reason; nothing is queued.
                let refused = try await enqueue(Self.jobCount)
                #expect(refused.termination != .exited(0))
                #expect(refused.standardError.contains("No space left on device"), "\(refused.standardError)")
                #expect(refused.standardError.contains("\(spool.path)/tmp/"), "\(refused.standardError)")
                #expect(try jobFiles("new") == [])
                #expect(try FileManager.default.contentsOfDirectory(atPath: spool.appending(path: "tmp").path) == [])

                // Enqueued in this process, all at once: `lineup` processes, a second each under
                // ThreadSanitizer, let the daemon run two jobs into the room meant for the files.
                try FileManager.default.removeItem(at: reserve)
                let queue = try SpoolDirectory(root: spool)
                for number in 0..<Self.jobCount {
                    try queue.enqueue(JobFile(kind: "import-buoy", id: "full-\(number)", parameters: ["input": .string("full-\(number).xml")]))
                }
                try disk.fill()

                // The first job's flush cannot be written.
                try await sandbox.poll("the first job to finish", daemon: daemon) {
                    log("job finished; acknowledged at the next flush") >= 1
                }
                daemon.send(SIGUSR1)
                try await sandbox.poll("a flush to fail", daemon: daemon) { log("flush failed") >= 1 }
                // A failed transaction may give a few pages back: take them, so that the report
                // of the second job (claimed before that failure) cannot be written either.
                try disk.fill()
                try await sandbox.poll("the second job to finish", daemon: daemon) {
                    log("job finished; acknowledged at the next flush") >= 2
                }
                #expect(log("cannot write a result report into tmp/") >= 1)
                daemon.send(SIGUSR1)
                try await sandbox.poll("claiming to pause", daemon: daemon) { log("claiming paused until a flush succeeds") >= 1 }
                #expect(sandbox.daemonLog.contains("database or disk is full"), "\(daemon.logTail())")
                #expect(sandbox.daemonLog.contains(store.path), "\(daemon.logTail())")
                try await Task.sleep(for: .milliseconds(300))
                #expect(try jobFiles("new").count == Self.jobCount - 2)
                #expect(try jobFiles("active").count == 2)
                #expect(try jobFiles("done") == [])
                let status = try await sandbox.lineup(["status", "--spool", spool.path])
                #expect(status.standardOutput.contains("queued \(Self.jobCount - 2), running 2, done 0, failed 0"), "\(status.standardOutput)")
                #expect(status.standardOutput.contains("last flush: "), "\(status.standardOutput)")
                #expect(status.standardOutput.contains("FAILED: "), "\(status.standardOutput)")
                #expect(status.standardOutput.contains("claiming paused until a flush succeeds"), "\(status.standardOutput)")

                // Space returns: the next flush carries everything, and claiming resumes.
                disk.emptyFillers()
                try await sandbox.poll("every job to reach done/", timeout: .seconds(120), daemon: daemon) {
                    daemon.send(SIGUSR1)
                    return try jobFiles("done").count == Self.jobCount
                }
                var doneIDs: [String] = []
                for file in try jobFiles("done") {
                    let url = spool.appending(path: "done/\(file)")
                    doneIDs.append(try JobFile(data: Data(contentsOf: url), path: url.path).id ?? file)
                }
                #expect(doneIDs.sorted() == (0..<Self.jobCount).map { "full-\($0)" })
                let inspector = StoreInspector(url: store)
                #expect(try inspector.observationCounts() == expected.filter { $0.key != "FD0\(Self.jobCount)" })
                #expect(try inspector.duplicateObservationKeys() == 0)

                // Flushes that keep failing past flushFailureTimeout stop the daemon.
                try configure(flushFailureTimeout: 1)
                daemon.send(SIGHUP)
                try await sandbox.poll("the reload", daemon: daemon) { log("configuration reloaded") >= 1 }
                let secondReserve = try disk.reserve(pages: 32)
                try disk.fill()
                try FileManager.default.removeItem(at: secondReserve)
                let last = try await enqueue(Self.jobCount)
                try #require(last.termination == .exited(0), "\(last.standardError)")
                try disk.fill()
                try await sandbox.poll("the last job to finish", daemon: daemon) {
                    log("job finished; acknowledged at the next flush") >= Self.jobCount + 1
                }
                // A flush now and then, until the failures have lasted a second.
                let deadline = ContinuousClock.now + .seconds(30)
                while daemon.isRunning, ContinuousClock.now < deadline {
                    daemon.send(SIGUSR1)
                    try await Task.sleep(for: .milliseconds(300))
                }
                let termination = try await daemon.waitForExit(timeout: .seconds(30))
                #expect(termination == .exited(74), "\(termination)")
                #expect(sandbox.daemonLog.contains("no job could be acknowledged for"), "\(daemon.logTail())")
                #expect(try jobFiles("done").count == Self.jobCount)
                #expect(try jobFiles("new").count + jobFiles("active").count == 1)

                // The next start, with space, runs it: done exactly once.
                disk.emptyFillers()
                try configure(flushFailureTimeout: 600)
                daemon = try await launch()
                try await sandbox.poll("the last job to reach done/", timeout: .seconds(60), daemon: daemon) {
                    daemon.send(SIGUSR1)
                    return try jobFiles("done").count == Self.jobCount + 1
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                #expect(try inspector.observationCounts() == expected)
                #expect(try inspector.integrityCheck() == "ok")
            }
        }
    }
}

/// A size-limited `tmpfs` mounted for one test (as root, which CI and these machines are), and
/// files that fill it. A test that cannot mount it fails: it is not skipped.
struct SmallFileSystem {
    let root: URL
    private let fillers: URL

    init(at root: URL, megabytes: Int) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", root.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            throw HarnessError("cannot mount a \(megabytes) MB tmpfs at \(root.path) (mount exited \(mount.terminationStatus)); this test needs root")
        }
        self.root = root
        self.fillers = root.appending(path: "fillers")
        try FileManager.default.createDirectory(at: fillers, withIntermediateDirectories: true)
    }

    /// Writes files until the file system refuses another byte.
    func fill() throws {
        let file = fillers.appending(path: UUID().uuidString)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw HarnessError("cannot create the filler \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        for chunk in [1 << 20, 4096, 1] {
            let data = Data(count: chunk)
            while (try? handle.write(contentsOf: data)) != nil {}
        }
    }

    /// A file of `pages` pages, to be removed to make exactly that room.
    func reserve(pages: Int) throws -> URL {
        let file = fillers.appending(path: "reserve-\(UUID().uuidString)")
        try Data(count: pages * 4096).write(to: file)
        return file
    }

    /// Removes every filler: the space returns.
    func emptyFillers() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: fillers.path)) ?? [] {
            try? FileManager.default.removeItem(at: fillers.appending(path: name))
        }
    }

    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = ["-l", root.path]
        try? umount.run()
        umount.waitUntilExit()
    }
}
