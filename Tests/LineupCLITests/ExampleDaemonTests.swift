import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `Examples/NoteDaemon`, the docs' daemon of your own, does what the docs say it does.
    @Suite("The example daemon")
    struct ExampleDaemonTests {
        @Test("note-daemon runs an add-note job enqueued with lineup, stores the note, and stops on SIGTERM")
        func runsAJob() async throws {
            try await withSandbox { sandbox in
                let directory = sandbox.root.appending(path: "notes")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let daemon = try sandbox.launch(Binaries.noteDaemon, [], in: directory, logName: "note-daemon")
                let enqueued = try await sandbox.run(
                    Binaries.lineup, ["enqueue", "add-note", "text=hello from a test", "--spool", "spool"], in: directory)
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the note job to be done", timeout: .seconds(60), daemon: daemon) {
                    (try? FileManager.default.contentsOfDirectory(atPath: directory.appending(path: "spool/done").path))?
                        .contains { $0.hasSuffix(".job.json") } == true
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                let notes = try await DatabaseQueue(path: directory.appending(path: "notes.sqlite").path).read { db in
                    try String.fetchAll(db, sql: "SELECT text FROM Note")
                }
                #expect(notes == ["hello from a test"])
            }
        }
    }
}
