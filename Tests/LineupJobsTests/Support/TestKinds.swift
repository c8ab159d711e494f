import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Synchronization

/// Inserts `count` rows labelled `label`, reporting progress after each one.
final class InsertRowsTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let count: Int
        let label: String?
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        for index in 0..<parameters.count {
            try checkCancellation()
            let row = TestRow(context: context)
            row.label = parameters.label ?? jobID
            row.value = index
            reportProgress(completed: Int64(index + 1), total: Int64(parameters.count))
        }
        return JobOutcome(summary: "inserted \(parameters.count) rows", counts: ["rows": parameters.count])
    }
}

/// Sets the value of the row with a key, inserting it if no row has the key: an import's upsert.
final class UpsertKeyedTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let key: String
        let value: Int
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let row = try context.fetch(FetchRequest<KeyedRow>(predicate: \.key == parameters.key)).first ?? KeyedRow(context: context)
        let inserted = row.key == nil
        row.key = parameters.key
        row.value = parameters.value
        return JobOutcome(summary: inserted ? "inserted \(parameters.key)" : "updated \(parameters.key)")
    }
}

/// Inserts a row, then fails while `request.attempt <= failures`; succeeds afterwards.
final class FailNTimesTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let failures: Int
        let retryable: Bool?
    }

    struct Failure: RetryableError, CustomStringConvertible {
        let attempt: Int
        let isRetryable: Bool
        var description: String { "planned failure of attempt \(attempt)" }
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let row = TestRow(context: context)
        row.label = "attempt \(request.attempt)"
        if request.attempt <= parameters.failures {
            throw Failure(attempt: request.attempt, isRetryable: parameters.retryable ?? true)
        }
        return JobOutcome(summary: "succeeded on attempt \(request.attempt)")
    }
}

/// Inserts a row, opens `running`, then waits for the test's latch, checking for
/// cancellation in between; or, when it `ignoresCancellation`, never checking: a job that a
/// shutdown cannot stop. Unless `waits` is false: then it returns at once.
final class SlowTask: JobTask, @unchecked Sendable {
    let latch: Latch
    let running: Latch
    let ignoresCancellation: Bool
    let waits: Bool

    init(request: JobRequest, latch: Latch, running: Latch, ignoresCancellation: Bool = false, waits: Bool = true) {
        self.latch = latch
        self.running = running
        self.ignoresCancellation = ignoresCancellation
        self.waits = waits
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let row = TestRow(context: context)
        row.label = "slow"
        reportProgress(completed: 1, total: 4)
        running.open()
        while waits && !latch.wait(timeout: 0.005) {
            if !ignoresCancellation {
                try checkCancellation()
            }
        }
        return JobOutcome(summary: "slow job done")
    }
}

/// Waits for the latch (`running` says it got there), then reads the store, as an import's
/// upsert reads its keys: what it meets there (the database gone) is its attempt's outcome. With
/// `fails`, it then fails for good, for a reason of its own.
final class WaitThenReadTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        var fails: Bool?
    }

    let parameters: Parameters
    let latch: Latch
    let running: Latch

    init(request: JobRequest, parameters: Parameters, latch: Latch, running: Latch) {
        self.parameters = parameters
        self.latch = latch
        self.running = running
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        running.open()
        while !latch.wait(timeout: 0.005) {
            try checkCancellation()
        }
        if parameters.fails == true {
            throw JobError(.jobFailed, "the input is not what it should be", isRetryable: false)
        }
        let rows = try context.count(for: FetchRequest<TestRow>())
        return JobOutcome(summary: "read \(rows) rows", counts: ["rows": rows])
    }
}

/// Saves a chunk of `count` rows into the main context, as a chunked import does, then waits
/// for the latch (`running` says it got there) and returns.
final class SaveThenWaitTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let count: Int
    }

    let parameters: Parameters
    let latch: Latch
    let running: Latch

    init(request: JobRequest, parameters: Parameters, latch: Latch, running: Latch) {
        self.parameters = parameters
        self.latch = latch
        self.running = running
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        for number in 0..<parameters.count {
            TestRow(context: context).label = "chunk, row \(number)"
        }
        try context.save()
        running.open()
        while !latch.wait(timeout: 0.005) {
            try checkCancellation()
        }
        return JobOutcome(summary: "saved a chunk, then waited")
    }
}

/// Saves a chunk of `count` rows into the main context, as a chunked import does, then fails
/// for good before its last chunk.
final class SaveThenFailTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let count: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the second chunk is unreadable" }
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        for number in 0..<parameters.count {
            TestRow(context: context).label = "chunk one, row \(number)"
        }
        try context.save()
        TestRow(context: context).label = "chunk two"
        throw JobError(.jobFailed, "\(Failure())", isRetryable: false)
    }
}

/// Counts the rows on disk (SQL, saved data only) and as the job's context sees them.
final class CountRowsTask: JobTask, @unchecked Sendable {
    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let onDisk = try request.container.rowCount(of: "TestRow")
        let visible = try context.count(for: FetchRequest<TestRow>())
        return JobOutcome(summary: "counted", counts: ["onDisk": onDisk, "visible": visible])
    }
}

/// Renames the row labelled `from` (in the context's view) to `to`.
final class RelabelTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let from: String
        let to: String
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let rows = try context.fetch(FetchRequest<TestRow>(predicate: \.label == parameters.from))
        for row in rows {
            row.label = parameters.to
        }
        return JobOutcome(summary: "relabelled", counts: ["rows": rows.count])
    }
}

/// Resolves its `input` and `output` paths at claim time (in the factory), as domain kinds do.
final class CopyFileTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let input: String
        let output: String
    }

    let input: URL
    let output: URL

    init(request: JobRequest, input: URL, output: URL) {
        self.input = input
        self.output = output
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let data = try Data(contentsOf: input)
        try data.write(to: output, options: .atomic)
        return JobOutcome(summary: "copied", counts: ["bytes": data.count], outputs: [output.lastPathComponent])
    }
}

/// Inserts a row and enqueues, with it, an `insert-rows` job of one row for each of
/// `followUps` (their ids); then fails if `fails` says so (a failed attempt: nothing of it kept).
final class EnqueueFollowUpsTask: JobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let followUps: [String]
        let fails: Bool?
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let row = TestRow(context: context)
        row.label = jobID
        try context.enqueue(
            contentsOf: parameters.followUps.map { id in
                try JobFile(kind: "insert-rows", id: id, parameters: ["count": 1, "label": .string(id)])
            })
        if parameters.fails == true {
            throw JobError(.jobFailed, "planned failure after enqueueing", isRetryable: false)
        }
        return JobOutcome(summary: "enqueued \(parameters.followUps.count) follow-ups")
    }
}

/// A batch's callback: reads the reports of the jobs in its `after` list and counts them, by
/// outcome, and the rows the done ones say they inserted.
final class ReadDependenciesTask: JobTask, @unchecked Sendable {
    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let reports = request.dependencyReports()
        var done = 0
        var failed = 0
        var rows = 0
        var reasons: [String] = []
        for id in request.file.after {
            switch reports[id] {
            case let .done(report)?:
                done += 1
                if case let .object(counts)? = report.details["counts"], case let .integer(count)? = counts["rows"] {
                    rows += count
                }
            case let .failed(report)?:
                failed += 1
                reasons.append(report.reason)
            case nil:
                break
            }
        }
        return JobOutcome(
            summary: "read \(reports.count) reports" + reasons.map { "; " + $0 }.joined(),
            counts: ["done": done, "failed": failed, "rows": rows])
    }
}

/// The kinds of the tests, with the latch that `slow` jobs wait for and the one they open
/// once running.
func testRegistry(
    latch: Latch = Latch(), running: Latch = Latch(), sawCancellation: Latch = Latch(),
    rendezvous: Rendezvous = Rendezvous(expected: 1)
) -> JobRegistry {
    var registry = JobRegistry()
    registry.register("async-insert-rows", parameters: AsyncInsertRowsTask.Parameters.self) { request, parameters in
        AsyncInsertRowsTask(request: request, parameters: parameters)
    }
    registry.register("async-sleep") { request in
        AsyncSleepTask(request: request, running: running, sawCancellation: sawCancellation)
    }
    registry.register("async-rendezvous") { request in
        AsyncRendezvousTask(request: request, rendezvous: rendezvous)
    }
    registry.register("insert-rows", parameters: InsertRowsTask.Parameters.self) { request, parameters in
        guard parameters.count >= 0 else {
            throw JobError(.invalidParameters, "field `count` must not be negative")
        }
        return InsertRowsTask(request: request, parameters: parameters)
    }
    registry.register("upsert-keyed", parameters: UpsertKeyedTask.Parameters.self) { request, parameters in
        UpsertKeyedTask(request: request, parameters: parameters)
    }
    registry.register("fail-n-times", parameters: FailNTimesTask.Parameters.self) { request, parameters in
        FailNTimesTask(request: request, parameters: parameters)
    }
    registry.register("slow") { request in
        // `slowAttempts`: only that many attempts wait for the latch, so that a retry can succeed
        // whenever it runs, however late the test gets to see the first attempt fail.
        struct Parameters: Decodable { let slowAttempts: Int? }
        let slowAttempts = try request.parameters(as: Parameters.self).slowAttempts ?? .max
        return SlowTask(request: request, latch: latch, running: running, waits: request.attempt <= slowAttempts)
    }
    registry.register("stubborn") { request in
        SlowTask(request: request, latch: latch, running: running, ignoresCancellation: true)
    }
    registry.register("save-then-wait", parameters: SaveThenWaitTask.Parameters.self) { request, parameters in
        SaveThenWaitTask(request: request, parameters: parameters, latch: latch, running: running)
    }
    registry.register("save-then-fail", parameters: SaveThenFailTask.Parameters.self) { request, parameters in
        SaveThenFailTask(request: request, parameters: parameters)
    }
    registry.register("enqueue-follow-ups", parameters: EnqueueFollowUpsTask.Parameters.self) { request, parameters in
        EnqueueFollowUpsTask(request: request, parameters: parameters)
    }
    registry.register("count-rows") { request in
        CountRowsTask(request: request)
    }
    registry.register("relabel", parameters: RelabelTask.Parameters.self) { request, parameters in
        RelabelTask(request: request, parameters: parameters)
    }
    registry.register("copy-file", parameters: CopyFileTask.Parameters.self) { request, parameters in
        CopyFileTask(
            request: request, input: try request.resolveInput(parameters.input),
            output: try request.resolveOutput(parameters.output))
    }
    return registry
}
