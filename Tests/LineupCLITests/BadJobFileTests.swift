import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Job files a careless producer may drop into `new/`: each goes to `failed/` with an
    /// `error.json` that says why, and the daemon goes on running jobs.
    @Suite("bad job files through the real daemon")
    struct BadJobFileTests {
        /// A bad job file, and words its failure report must contain.
        struct BadJob: Sendable {
            let file: String
            let contents: String
            let reasonMentions: [String]
        }

        @Test("every bad job file ends in failed/ with a reason, and a good job still completes")
        func badJobsFailAndTheDaemonGoesOn() async throws {
            try await withSandbox { sandbox in
                try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input, as: "good.xml")
                let outside = sandbox.root.appending(path: "outside", directoryHint: .isDirectory)
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                let secret = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: outside, as: "secret.xml")
                try FileManager.default.createSymbolicLink(
                    at: sandbox.input.appending(path: "escape.xml"), withDestinationURL: secret)

                let badJobs = [
                    BadJob(
                        file: "01-malformed.job.json", contents: #"{"kind": "import-buoy", "input": "#,
                        reasonMentions: ["01-malformed.job.json", "not valid JSON"]),
                    BadJob(
                        file: "02-not-an-object.job.json", contents: #"["import-buoy", "good.xml"]"#,
                        reasonMentions: ["02-not-an-object.job.json", "must be a JSON object, found an array"]),
                    BadJob(
                        file: "03-unknown-kind.job.json", contents: #"{"kind": "import-tides", "input": "good.xml"}"#,
                        reasonMentions: ["03-unknown-kind.job.json", #"no task is registered for kind "import-tides""#]),
                    BadJob(
                        file: "04-missing-input.job.json", contents: #"{"kind": "import-buoy"}"#,
                        reasonMentions: ["04-missing-input.job.json", "no `input` field"]),
                    BadJob(
                        file: "05-dot-dot.job.json", contents: #"{"kind": "import-buoy", "input": "../outside/secret.xml"}"#,
                        reasonMentions: ["05-dot-dot.job.json", "../outside/secret.xml", "climbs out of the input directory"]),
                    BadJob(
                        file: "06-absolute.job.json",
                        contents: #"{"kind": "import-buoy", "input": "\#(secret.path)"}"#,
                        reasonMentions: ["06-absolute.job.json", secret.path, "absolute paths are refused"]),
                    BadJob(
                        file: "07-symlink-out.job.json", contents: #"{"kind": "import-buoy", "input": "escape.xml"}"#,
                        reasonMentions: [
                            "07-symlink-out.job.json", "escape.xml", "resolves to \(secret.path)", "outside the input directory",
                        ]),
                ]

                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2", "--concurrency", "2"])
                for job in badJobs {
                    try sandbox.dropJob(named: job.file, contents: job.contents)
                }
                try await sandbox.poll("every bad job to reach failed/", daemon: daemon) {
                    try sandbox.jobFiles("failed").count == badJobs.count
                }
                #expect(daemon.isRunning)
                #expect(try sandbox.enqueuedJobFiles("failed") == badJobs.map(\.file))
                for job in badJobs {
                    let report = try sandbox.failureReport(forJobFile: try sandbox.claimedJobFile("failed", enqueuedAs: job.file))
                    for words in job.reasonMentions {
                        #expect(report.reason.contains(words), "\(job.file): \(report.reason)")
                    }
                    // Bad input cannot succeed on retry: failed at once, after one attempt.
                    #expect(report.retryable == false, "\(job.file)")
                    #expect(report.attempts == 1, "\(job.file)")
                }
                #expect(try StoreInspector(url: sandbox.store).observationCount() == 0)

                // Enqueued after the daemon failed the others: it still runs and completes.
                let enqueued = try await sandbox.lineup([
                    "enqueue", "import-buoy", "input=good.xml", "--id", "good", "--spool", sandbox.spool.path,
                ])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the good job to reach done/", daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1
                }
                let done = try sandbox.jobFiles("done")
                #expect(try sandbox.job("done", done[0]).id == "good")
                #expect(try sandbox.resultReport(forJobFile: done[0]).id == "good")
                #expect(try StoreInspector(url: sandbox.store).observationCounts() == ["LNP01": 100, "LNP02": 100, "LNP03": 100])
                #expect(try sandbox.jobFiles("failed").count == badJobs.count)
                #expect(try sandbox.jobFiles("new") == [])
                #expect(try sandbox.jobFiles("active") == [])

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                #expect(try StoreInspector(url: sandbox.store).integrityCheck() == "ok")
            }
        }
    }
}
