import Foundation
import LineupJobs
import LineupStore

/// The spool benchmark's job kind: it does nothing, so that the benchmark measures the daemon
/// (claim, parse, queue, task context, flush, acknowledgement) and not the work of a job.
///
/// Its one parameter, `enqueuedAt`, is the producer's monotonic clock just before it called
/// `SpoolDirectory.enqueue`; the task records how long ago that was when it starts running.
final class NoOpJobTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    struct Parameters: Decodable, Sendable {
        let enqueuedAt: UInt64
    }

    static let kind = "bench-noop"

    let enqueuedAt: UInt64
    let recorder: PickupRecorder

    init(request: JobRequest, parameters: Parameters, recorder: PickupRecorder) {
        self.enqueuedAt = parameters.enqueuedAt
        self.recorder = recorder
        super.init(request: request)
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        recorder.record(started: MonotonicClock.now(), enqueuedAt: enqueuedAt)
        return JobOutcome(summary: "nothing")
    }

    /// A registry with this kind alone, recording into `recorder`.
    static func registry(recorder: PickupRecorder) -> JobRegistry {
        var registry = JobRegistry()
        registry.register(kind, parameters: Parameters.self) { request, parameters in
            NoOpJobTask(request: request, parameters: parameters, recorder: recorder)
        }
        return registry
    }
}
