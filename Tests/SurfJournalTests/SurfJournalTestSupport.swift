import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import Testing

/// A store, an input and an output directory, and a way to run one job of a surf-journal kind
/// the way the daemon does (its own task context, saved into main), then flush.
final class JournalFixture {
    let root: URL
    let input: URL
    let output: URL
    let container: PersistentContainer
    let registry = SurfJournalJobs.registry

    /// - Parameter prepareStore: called with the store's URL before the store is opened (to
    ///   leave there a store an earlier model wrote).
    init(prepareStore: ((URL) throws -> Void)? = nil) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("surfjournal-tests-\(UUID().uuidString)")
        input = root.appendingPathComponent("input")
        output = root.appendingPathComponent("output")
        for directory in [input, output] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let storeURL = root.appendingPathComponent("store.sqlite")
        try prepareStore?(storeURL)
        container = try PersistentContainer(url: storeURL, model: SurfJournalModel.model, logger: logger)
    }

    deinit {
        try? container.close()
        try? FileManager.default.removeItem(at: root)
    }

    /// Copies a corpus file (and, for a Core Data store, its -wal and -shm) into the input directory.
    func copyCorpus(_ relativePath: String, withSidecars: Bool = false) throws {
        let source = corpusDirectory.appendingPathComponent(relativePath)
        for suffix in withSidecars ? ["", "-wal", "-shm"] : [""] {
            try FileManager.default.copyItem(
                at: URL(fileURLWithPath: source.path + suffix),
                to: input.appendingPathComponent(source.lastPathComponent + suffix))
        }
    }

    func writeInput(_ name: String, _ contents: String) throws {
        try writeInput(name, Data(contents.utf8))
    }

    func writeInput(_ name: String, _ contents: Data) throws {
        try contents.write(to: input.appendingPathComponent(name))
    }

    /// Makes and runs the task of a job file; throws what the factory throws.
    func run(_ json: String) throws -> JobTaskResult {
        let file = try JobFile(data: Data(json.utf8))
        let request = JobRequest(
            jobID: file.id ?? "test", name: "test", file: file, jobFilePath: "test.job.json",
            paths: PathPolicy(inputDirectory: input, outputDirectory: output), container: container,
            logger: Logger(label: "test"))
        let task = try registry.makeTask(for: request)
        task.start()
        return try #require(task.result)
    }

    /// Runs a job that must succeed, then flushes; returns its outcome.
    func runSucceeding(_ json: String) throws -> JobOutcome {
        let result = try run(json)
        guard let outcome = result.outcome else {
            Issue.record("job failed: \(String(describing: result.error))")
            throw JobError(.jobFailed, "job failed")
        }
        try container.flush()
        return outcome
    }

    /// Runs a job that must fail with a `JobError`; returns it.
    func runFailing(_ json: String) throws -> JobError {
        let result = try run(json)
        #expect(result.outcome == nil)
        return try #require(result.error as? JobError, "job did not fail with a JobError: \(String(describing: result.error))")
    }

    /// Checks that nothing of a failed job reached the main context or, after a flush, the store.
    func expectNothingStored(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!container.mainContext.performAndWait { container.mainContext.hasChanges }, sourceLocation: sourceLocation)
        try container.flush()
        #expect(try container.rowCount(of: "BuoyObservation") == 0, sourceLocation: sourceLocation)
        #expect(try container.rowCount(of: "BuoyStation") == 0, sourceLocation: sourceLocation)
    }

    func count<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> Int {
        let context = container.newTaskContext(name: "check")
        return try context.performAndWait { try context.count(for: request) }
    }
}

let corpusDirectory: URL = {
    // Tests/SurfJournalTests/<file> → the package root → ../shared/corpus
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
}()

func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)!
}
