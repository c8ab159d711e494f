import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// What the command line offers beside the API: a trace context, a batch with its callback,
    /// the reports a callback reads, reasons that lead with the problem, and errors without a
    /// usage banner where the command was called right.
    @Suite("Operator tools")
    struct OperatorToolsTests {
        @Test("a batch from the command line runs its callback once its jobs settle, and show prints how each job waited for was settled")
        func batchWithCallback() async throws {
            try await withSandbox { sandbox in
                let lines = [
                    #"{"kind": "statistics", "output": "first.json"}"#,
                    #"{"kind": "import-buoy", "input": "obs/missing.xml"}"#,
                ]
                let batchFile = sandbox.root.appendingPathComponent("batch.jsonl")
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: batchFile)
                let enqueued = try await sandbox.lineup([
                    "enqueue", "statistics", "output=after.json", "--batch", batchFile.path, "--after-settled", "--id", "nightly",
                    "--spool", "spool",
                ])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                #expect(
                    enqueued.standardOutput.hasPrefix("batch nightly: 2 job(s) (nightly.1, nightly.2), callback nightly\n"),
                    "\(enqueued.standardOutput)")
                // A job of its own that waits for the callback and the batch's jobs, to read
                // their reports with show.
                let reader = try await sandbox.lineup([
                    "enqueue", "statistics", "output=reader.json", "--id", "reader", "--after", "nightly", "--after", "nightly.1",
                    "--after", "nightly.2", "--after-settled", "--spool", "spool",
                ])
                try #require(reader.termination == .exited(0), "\(reader.standardError)")

                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                // The reader is the one single job file; the batch is a bulk file (`*.jobs.jsonl`).
                try await sandbox.poll("the reader to be done", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let shown = try await sandbox.lineup(["show", "reader", "--spool", "spool"])
                #expect(shown.termination == .exited(0), "\(shown.standardError)")
                let output = shown.standardOutput
                #expect(output.contains("after (runs once all have settled):\n"), "\(output)")
                // The callback ran after its batch, though one of its jobs failed.
                #expect(output.contains("\n  nightly: done ") && output.contains("\n  nightly.1: done "), "\(output)")
                // The reason leads with what went wrong and the path the operator gave.
                #expect(output.contains("\n  nightly.2: failed ") && output.contains(": input not found: obs/missing.xml"), "\(output)")
                #expect(FileManager.default.fileExists(atPath: sandbox.output.appendingPathComponent("after.json").path))
            }
        }

        @Test("a batch with a line that is not a job is refused whole, naming the line, and nothing is enqueued")
        func batchWithABadLine() async throws {
            try await withSandbox { sandbox in
                let batchFile = sandbox.root.appendingPathComponent("bad.jsonl")
                try Data("{\"kind\": \"statistics\"}\n{\"kind\": 3}\n".utf8).write(to: batchFile)
                let refused = try await sandbox.lineup(["enqueue", "statistics", "--batch", batchFile.path, "--spool", "spool"])
                #expect(refused.termination == .exited(1))
                #expect(refused.standardError.contains("\(batchFile.path):2: "), "\(refused.standardError)")
                #expect(refused.standardError.contains("nothing enqueued") && !refused.standardError.contains("Usage:"), "\(refused.standardError)")
                #expect(try sandbox.fileNames("new") == [])
            }
        }

        @Test("a failure reason begins with what went wrong, and names the job file last")
        func reasonLeadsWithTheProblem() async throws {
            try await withSandbox { sandbox in
                try await sandbox.enqueueImport(id: "missing-input", input: "obs/not-there.xml")
                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                try await sandbox.poll("the job to fail", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                let failed = try sandbox.jobFiles("failed")[0]
                let reason = try sandbox.failureReport(forJobFile: failed).reason
                #expect(reason.hasPrefix("input not found: obs/not-there.xml: "), "\(reason)")
                #expect(reason.hasSuffix(" (job file \(Sandbox.enqueuedName(of: failed)))"), "\(reason)")
            }
        }

        @Test("enqueue --traceparent and --tracestate go into the job file; a malformed one is refused as a usage error")
        func traceContext() async throws {
            try await withSandbox { sandbox in
                let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                let enqueued = try await sandbox.lineup([
                    "enqueue", "statistics", "output=s.json", "--traceparent", traceparent, "--tracestate", "vendor=blue",
                    "--spool", "spool",
                ])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                let job = try sandbox.job("new", try sandbox.jobFiles("new")[0])
                #expect(job.traceparent == traceparent && job.tracestate == "vendor=blue")

                let malformed = try await sandbox.lineup(["enqueue", "statistics", "--traceparent", "00-zz-01", "--spool", "spool"])
                #expect(malformed.termination == .exited(64))
                #expect(malformed.standardError.contains("traceparent") && malformed.standardError.contains("Usage:"), "\(malformed.standardError)")
                let alone = try await sandbox.lineup(["enqueue", "statistics", "--tracestate", "vendor=blue", "--spool", "spool"])
                #expect(alone.termination == .exited(64) && alone.standardError.contains("--tracestate needs --traceparent"))
                #expect(try sandbox.jobFiles("new").count == 1)
            }
        }

        @Test("a command that finds no such job prints the error alone; a wrong call still prints the usage")
        func errorsWithoutUsage() async throws {
            try await withSandbox { sandbox in
                for arguments in [["show", "nope"], ["retry", "nope"], ["cancel", "nope", "--wait", "0"]] {
                    let result = try await sandbox.lineup(arguments + ["--spool", "spool"])
                    #expect(result.termination == .exited(1), "\(arguments)")
                    #expect(result.standardError.hasPrefix("Error: no "), "\(arguments): \(result.standardError)")
                    #expect(!result.standardError.contains("Usage:"), "\(arguments): \(result.standardError)")
                }
                let wrong = try await sandbox.lineup(["enqueue", "--spool", "spool"])
                #expect(wrong.termination == .exited(64))
                #expect(wrong.standardError.contains("give a job kind") && wrong.standardError.contains("Usage:"), "\(wrong.standardError)")
            }
        }
    }
}
