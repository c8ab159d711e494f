import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

@Suite final class JobRegistryTests {
    let directory: URL
    let container: PersistentContainer

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "lineup-registry-tests-\(UUID().uuidString)")
        for name in ["input", "output", "outside"] {
            try FileManager.default.createDirectory(at: directory.appending(path: name), withIntermediateDirectories: true)
        }
        container = try PersistentContainer(
            url: directory.appending(path: "store.sqlite"), model: testModel, logger: Logger(label: "test"))
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func request(_ file: JobFile) -> JobRequest {
        JobRequest(
            jobID: file.id ?? "job", name: "job", file: file, jobFilePath: "/spool/active/job.job.json",
            paths: PathPolicy(
                inputDirectory: directory.appending(path: "input"), outputDirectory: directory.appending(path: "output")),
            container: container, logger: Logger(label: "test"))
    }

    func refusal(of file: JobFile) -> JobError? {
        do {
            let task = try testRegistry().makeTask(for: request(file))
            Issue.record("expected the factory to refuse the job, it made \(task)")
            return nil
        } catch {
            return error
        }
    }

    @Test func kindsAreListedSorted() {
        #expect(
            testRegistry().kinds == [
                "async-insert-rows", "async-rendezvous", "async-sleep", "copy-file", "count-rows", "enqueue-follow-ups",
                "fail-n-times", "insert-rows", "relabel", "save-then-fail", "save-then-wait", "slow", "stubborn", "upsert-keyed",
            ])
    }

    @Test func unknownKindNamesTheKindTheKnownKindsAndTheFile() throws {
        let error = try #require(refusal(of: JobFile(kind: "import-tide")))
        #expect(error.code == .unknownKind)
        #expect(!error.isRetryable)
        #expect(
            error.description
                == "unknown kind: no task is registered for kind \"import-tide\" "
                + "(known kinds: async-insert-rows, async-rendezvous, async-sleep, copy-file, count-rows, enqueue-follow-ups, "
                + "fail-n-times, insert-rows, relabel, save-then-fail, save-then-wait, slow, stubborn, upsert-keyed) "
                + "(job file /spool/active/job.job.json)")
    }

    @Test func missingParameterNamesTheField() throws {
        let error = try #require(refusal(of: JobFile(kind: "insert-rows", parameters: ["label": "x"])))
        #expect(error.code == .invalidParameters)
        #expect(!error.isRetryable)
        #expect(error.jobFile == "/spool/active/job.job.json")
        #expect(error.message.contains("`count`"))
    }

    @Test func mistypedParameterNamesTheField() throws {
        let error = try #require(refusal(of: JobFile(kind: "insert-rows", parameters: ["count": "many"])))
        #expect(error.code == .invalidParameters)
        #expect(error.message.contains("`count`"))
    }

    @Test func factoryValidationErrorIsNotRetryable() throws {
        let error = try #require(refusal(of: JobFile(kind: "insert-rows", parameters: ["count": -1])))
        #expect(error.code == .invalidParameters)
        #expect(!error.isRetryable)
        #expect(error.description == "invalid parameters: field `count` must not be negative (job file /spool/active/job.job.json)")
    }

    @Test(arguments: ["../outside/secret.txt", "/etc/hostname", "a/../../outside/secret.txt"])
    func inputPathOutsideTheInputDirectoryIsRefused(path: String) throws {
        try Data("secret".utf8).write(to: directory.appending(path: "outside/secret.txt"))
        let error = try #require(
            refusal(of: JobFile(kind: "copy-file", parameters: ["input": .string(path), "output": "copy.txt"])))
        #expect(error.code == .pathOutsideAllowedDirectory)
        #expect(!error.isRetryable)
        #expect(error.message.contains(path))
    }

    @Test func symbolicLinkOutOfTheInputDirectoryIsRefused() throws {
        try Data("secret".utf8).write(to: directory.appending(path: "outside/secret.txt"))
        try FileManager.default.createSymbolicLink(
            at: directory.appending(path: "input/link.txt"), withDestinationURL: directory.appending(path: "outside/secret.txt"))
        let error = try #require(
            refusal(of: JobFile(kind: "copy-file", parameters: ["input": "link.txt", "output": "copy.txt"])))
        #expect(error.code == .pathOutsideAllowedDirectory)
        #expect(error.message.contains("symbolic link"))
    }

    @Test func missingInputIsNotRetryable() throws {
        let error = try #require(
            refusal(of: JobFile(kind: "copy-file", parameters: ["input": "nope.txt", "output": "copy.txt"])))
        #expect(error.code == .inputNotFound)
        #expect(!error.isRetryable)
    }

    @Test func errorsAreClassifiedForRetries() {
        #expect(ErrorClassification.isRetryable(JobError(.jobFailed, "disk busy")))
        #expect(!ErrorClassification.isRetryable(JobError(.jobFailed, "bad document", isRetryable: false)))
        #expect(!ErrorClassification.isRetryable(JobError(.invalidParameters, "x")))
        #expect(ErrorClassification.isRetryable(SpoolError(code: .io, path: "/x", message: "EIO")))
        #expect(!ErrorClassification.isRetryable(SpoolError(code: .malformedJobFile, path: "/x", message: "not JSON")))
        #expect(!ErrorClassification.isRetryable(FailNTimesTask.Failure(attempt: 1, isRetryable: false)))
        #expect(ErrorClassification.isRetryable(CancellationError()))
    }
}
