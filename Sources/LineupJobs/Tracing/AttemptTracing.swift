import Tracing

/// One attempt's span. The coordinator makes it as it queues the attempt; the task's thread
/// begins the span when the attempt starts running and ends it with the attempt's result, so
/// that the span times the run (not the wait for a slot) and the job's work runs with the span's
/// context current (spans the work makes, and jobs it enqueues, are its children).
struct AttemptTracing: Sendable {
    let tracer: any Tracer
    /// The enqueuer's span, or a new trace.
    let parent: ServiceContext
    let jobID: String
    let name: String
    let kind: String
    let attempt: Int

    func start() -> any Span {
        let span = tracer.startSpan("run \(kind)", context: parent, ofKind: .consumer)
        span.attributes["lineup.job.id"] = jobID
        span.attributes["lineup.job.name"] = name
        span.attributes["lineup.job.kind"] = kind
        span.attributes["lineup.job.attempt"] = attempt
        return span
    }

    /// Ends `span` with `result`: `lineup.job.outcome` is `succeeded` (its acknowledgement follows
    /// with a flush), `failed` (error status, with the error) or `cancelled`.
    static func end(_ span: any Span, with result: JobTaskResult) {
        switch result {
        case .succeeded:
            span.attributes["lineup.job.outcome"] = "succeeded"
        case .cancelled:
            span.attributes["lineup.job.outcome"] = "cancelled"
        case let .failed(error):
            span.attributes["lineup.job.outcome"] = "failed"
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        }
        span.end()
    }
}
