import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineup enqueue --from FILE`: many jobs in one bulk file, each run and acknowledged by the
    /// real daemon as a job of its own, a bad line failing alone.
    @Suite("Bulk enqueue")
    struct BulkEnqueueTests {
        @Test("a JSON Lines file goes in as one bulk file; its jobs run, and its bad line fails alone, named by its line")
        func enqueueFromFile() async throws {
            try await withSandbox { sandbox in
                var lines = (1...10).map { #"{"kind":"statistics","output":"stats-\#($0).json"}"# }
                lines.insert("", at: 3)
                lines.append(#"{"kind":"no-such-kind","id":"odd-one"}"#)
                let file = sandbox.root.appending(path: "jobs.jsonl")
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)

                let enqueued = try await sandbox.lineup(["enqueue", "--from", file.path, "--spool", "spool"])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                #expect(enqueued.standardOutput.hasSuffix(".jobs.jsonl\n"), "\(enqueued.standardOutput)")
                #expect(enqueued.standardError == "", "every line is a valid job file: \(enqueued.standardError)")
                #expect(try sandbox.fileNames("new").count == 1)

                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.poll("the bulk to be done", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.fileNames("done").contains { $0.hasSuffix(".jobs.jsonl") }
                }
                for number in 1...10 {
                    #expect(FileManager.default.fileExists(atPath: sandbox.output.appending(path: "stats-\(number).json").path))
                }
                let failed = try sandbox.jobFiles("failed")
                #expect(failed.count == 1 && failed[0].contains(".line12."), "\(failed)")
                let report = try sandbox.failureReport(forJobFile: failed[0])
                #expect(report.reason.contains(".jobs.jsonl:12") && report.reason.contains("no-such-kind"), "\(report.reason)")
                #expect(report.id == "odd-one")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("a line that is not a job is named on standard error and enqueued all the same; an empty file, or a kind with --from, is refused")
        func refusals() async throws {
            try await withSandbox { sandbox in
                let file = sandbox.root.appending(path: "jobs.jsonl")
                try Data("{\"kind\":\"statistics\",\"output\":\"s.json\"}\n{oops\n".utf8).write(to: file)
                let warned = try await sandbox.lineup(["enqueue", "--from", file.path, "--spool", "spool"])
                #expect(warned.termination == .exited(0))
                #expect(warned.standardError.contains("jobs.jsonl:2") && warned.standardError.contains("that job will fail"), "\(warned.standardError)")

                let empty = sandbox.root.appending(path: "empty.jsonl")
                try Data("\n\n".utf8).write(to: empty)
                let refused = try await sandbox.lineup(["enqueue", "--from", empty.path, "--spool", "spool"])
                #expect(refused.termination != .exited(0))
                #expect(refused.standardError.contains("holds no job"), "\(refused.standardError)")

                let mixed = try await sandbox.lineup(["enqueue", "statistics", "--from", file.path, "--spool", "spool"])
                #expect(mixed.termination != .exited(0))
                #expect(mixed.standardError.contains("--from takes its jobs from the file"), "\(mixed.standardError)")
                #expect(try sandbox.fileNames("new").count == 1, "only the first call enqueued")
            }
        }
    }
}
