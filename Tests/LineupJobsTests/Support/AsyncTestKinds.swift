import Foundation
import LineupJobs
import LineupStore

/// Inserts `count` rows, one `perform` each, yielding between them: the shape of an async
/// import that awaits its input chunk by chunk.
final class AsyncInsertRowsTask: AsyncJobTask, @unchecked Sendable {
    struct Parameters: Decodable, Sendable {
        let count: Int
        let failAfter: Int?
    }

    struct Failure: Error, Equatable {
        let afterRows: Int
    }

    let parameters: Parameters

    init(request: JobRequest, parameters: Parameters) {
        self.parameters = parameters
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        let label = jobID
        for index in 0..<parameters.count {
            if index == parameters.failAfter {
                throw Failure(afterRows: index)
            }
            await Task.yield()
            try await context.perform {
                let row = TestRow(context: context)
                row.label = label
                row.value = index
            }
            reportProgress(completed: Int64(index + 1), total: Int64(parameters.count))
        }
        return JobOutcome(summary: "inserted \(parameters.count) rows", counts: ["rows": parameters.count])
    }
}

/// Inserts a row, opens `running`, then sleeps for an hour: only a cancelled Swift task (the
/// sleep throws `CancellationError`) lets it end in time.
final class AsyncSleepTask: AsyncJobTask, @unchecked Sendable {
    let running: Latch
    /// Set once the sleep was cut short by cancellation.
    let sawCancellation: Latch

    init(request: JobRequest, running: Latch, sawCancellation: Latch) {
        self.running = running
        self.sawCancellation = sawCancellation
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        try await context.perform {
            TestRow(context: context).label = "async-sleep"
        }
        running.open()
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch is CancellationError {
            sawCancellation.open()
            throw CancellationError()
        }
        return JobOutcome(summary: "slept an hour")
    }
}

/// Waits until `expected` jobs of its kind have arrived, then inserts a row: jobs that need
/// each other to be running at once, all awaiting on the cooperative pool.
final class AsyncRendezvousTask: AsyncJobTask, @unchecked Sendable {
    let rendezvous: Rendezvous

    init(request: JobRequest, rendezvous: Rendezvous) {
        self.rendezvous = rendezvous
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        await rendezvous.arrive()
        try await context.perform {
            TestRow(context: context).label = "rendezvous"
        }
        return JobOutcome(summary: "met")
    }
}

/// A barrier for async code: `arrive()` returns once `expected` callers have arrived.
actor Rendezvous {
    let expected: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(expected: Int) {
        self.expected = expected
    }

    /// The callers waiting for the others.
    var arrived: Int { waiting.count }

    func arrive() async {
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            if waiting.count == expected {
                waiting.forEach { $0.resume() }
                waiting.removeAll()
            }
        }
    }
}
