import Foundation
import LineupJobs
import LineupSpool
import Testing

/// Bad job files fail at once, with a report that says why and names the file.
@Suite(.daemonTestTimeLimit) struct JobFileTests {
    func failure(of enqueue: (DaemonHarness) throws -> SpoolEntry) async throws -> (JobFailureReport, DaemonHarness, SpoolEntry) {
        let harness = try DaemonHarness()
        // The caller removes the files once it has read them; if this throws, it never has them.
        do {
            var (events, run) = try await harness.start()
            let entry = try enqueue(harness)
            let report = try await events.failed(entry.name)
            #expect(try harness.failureReport(entry) == JobFailureReport(data: report.encoded()))
            #expect(report.attempts == 1)
            #expect(!report.retryable)
            #expect(!events.seen.contains { if case .jobStarted = $0 { true } else { false } })
            try await harness.stop(run)
            return (report, harness, entry)
        } catch {
            harness.removeFiles()
            throw error
        }
    }

    /// How failure reports name a job: by its file name as it was enqueued.
    func spoolName(_ harness: DaemonHarness, _ entry: SpoolEntry) -> String {
        entry.fileName
    }

    @Test func malformedJSONFails() async throws {
        let (report, harness, entry) = try await failure { try $0.enqueue(raw: "{\"kind\": \"insert-rows\", ") }
        defer { harness.removeFiles() }
        #expect(report.kind == nil)
        #expect(report.reason.hasPrefix("malformed job file: job file is not valid JSON") && report.reason.hasSuffix("(job file \(spoolName(harness, entry)))"))
    }

    @Test func jobFileWithoutKindFails() async throws {
        let (report, harness, entry) = try await failure { try $0.enqueue(raw: "{\"count\": 3}") }
        defer { harness.removeFiles() }
        #expect(report.reason.hasPrefix("invalid parameters: job file has no `kind` field") && report.reason.hasSuffix("(job file \(spoolName(harness, entry)))"))
    }

    @Test func missingParameterFails() async throws {
        let (report, harness, entry) = try await failure { try $0.enqueue(["kind": "insert-rows", "label": "x"]) }
        defer { harness.removeFiles() }
        #expect(report.kind == "insert-rows")
        #expect(report.reason.hasPrefix("invalid parameters:") && report.reason.hasSuffix("(job file \(spoolName(harness, entry)))"))
        #expect(report.reason.contains("`count`"))
    }

    @Test func unknownKindFailsNamingTheKnownKinds() async throws {
        let (report, harness, entry) = try await failure { try $0.enqueue(["kind": "import-tide", "input": "x"]) }
        defer { harness.removeFiles() }
        #expect(
            report.reason
                == "unknown kind: no task is registered for kind \"import-tide\" "
                + "(known kinds: async-insert-rows, async-rendezvous, async-sleep, copy-file, count-rows, enqueue-follow-ups, "
                + "fail-n-times, insert-rows, relabel, save-then-fail, save-then-wait, slow, stubborn, upsert-keyed) "
                + "(job file \(spoolName(harness, entry)))")
    }

    @Test(arguments: ["../store.sqlite", "/etc/hostname", "escape.txt"])
    func inputOutsideTheInputDirectoryFails(path: String) async throws {
        let (report, harness, entry) = try await failure { harness in
            // escape.txt is a symbolic link from the input directory to a file outside it.
            try Data("x".utf8).write(to: harness.root.appending(path: "secret.txt"))
            try FileManager.default.createSymbolicLink(
                at: harness.root.appending(path: "input/escape.txt"),
                withDestinationURL: harness.root.appending(path: "secret.txt"))
            return try harness.enqueue(["kind": "copy-file", "input": .string(path), "output": "copy.txt"])
        }
        defer { harness.removeFiles() }
        #expect(report.reason.hasPrefix("path outside allowed directory: \(path): ") && report.reason.hasSuffix("(job file \(spoolName(harness, entry)))"))
        #expect(!FileManager.default.fileExists(atPath: harness.root.appending(path: "output/copy.txt").path))
    }

    @Test func outputOutsideTheOutputDirectoryFails() async throws {
        let (report, harness, entry) = try await failure { harness in
            try Data("x".utf8).write(to: harness.root.appending(path: "input/in.txt"))
            return try harness.enqueue(["kind": "copy-file", "input": "in.txt", "output": "../input/overwritten.txt"])
        }
        defer { harness.removeFiles() }
        #expect(report.reason.hasPrefix("path outside allowed directory: ../input/overwritten.txt: ") && report.reason.hasSuffix("(job file \(spoolName(harness, entry)))"))
    }

    @Test func pathsInsideTheDirectoriesWork() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try Data("hello".utf8).write(to: harness.root.appending(path: "input/in.txt"))
        let entry = try harness.enqueue(["kind": "copy-file", "input": "./in.txt", "output": "copy.txt"])
        try await events.finished(entry.name)
        try await harness.daemon.flush()
        #expect(try Data(contentsOf: harness.root.appending(path: "output/copy.txt")) == Data("hello".utf8))
        #expect(try harness.resultReport(entry).details["outputs"] == ["copy.txt"])
        try await harness.stop(run)
    }
}
