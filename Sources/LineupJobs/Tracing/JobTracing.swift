import LineupSpool
import Tracing

/// The runner's spans: one per attempt (``AttemptTracing``) and one per flush. Made only when a
/// tracer is bootstrapped (lineupd's `--otel-endpoint`); without one the runner holds nil and
/// touches no tracing code on a job's way.
struct JobTracing: Sendable {
    let tracer: any Tracer

    /// The bootstrapped tracer, or nil when there is none (`NoOpTracer`). Read once, when the
    /// runner is made: an executable bootstraps its tracer before it starts a daemon.
    static var bootstrapped: JobTracing? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : JobTracing(tracer: tracer)
    }

    /// The context an attempt's span is a child of: the enqueuer's span, from the job file's
    /// `traceparent` and `tracestate`; a new trace for a job that has none.
    func parentContext(of file: JobFile?) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard let file, let traceparent = file.traceparent else { return context }
        var carrier = ["traceparent": traceparent]
        carrier["tracestate"] = file.tracestate
        tracer.extract(carrier, into: &context, using: JobFileTraceExtractor())
        return context
    }

    /// What an attempt's span needs, made on the coordinator as the attempt is queued.
    func attempt(jobID: String, name: String, file: JobFile?, attempt: Int) -> AttemptTracing {
        AttemptTracing(tracer: tracer, parent: parentContext(of: file), jobID: jobID, name: name, kind: file?.kind ?? "?", attempt: attempt)
    }

    /// Records an attempt that failed before it ran, because its task could not be made (an
    /// input that is not there, parameters its kind refuses): it counts as an attempt, so it has
    /// a span too, with error status and no duration to speak of.
    func recordAttemptThatCouldNotStart(jobID: String, name: String, file: JobFile?, attempt: Int, error: any Error) {
        let tracing = self.attempt(jobID: jobID, name: name, file: file, attempt: attempt)
        AttemptTracing.end(tracing.start(), with: .failed(error))
    }

    /// Records a flush that wrote rows or acknowledged jobs (an idle daemon's empty flushes make
    /// no span), from when the committer was handed its group (`start`) to now.
    func recordFlush(
        _ reason: FlushSummary.Reason, start: DefaultTracerClock.Instant, rowsWritten: Int, rowsFromMain: Int, acknowledged: Int
    ) {
        guard rowsWritten > 0 || acknowledged > 0 else { return }
        let span = tracer.startSpan("flush", context: ServiceContext.topLevel, ofKind: .internal, at: start)
        span.attributes["lineup.flush.reason"] = "\(reason)"
        span.attributes["lineup.flush.rows_written"] = rowsWritten
        span.attributes["lineup.flush.rows_from_main"] = rowsFromMain
        span.attributes["lineup.flush.jobs_acknowledged"] = acknowledged
        span.end()
    }

    /// Records a flush that failed, with error status: nothing it carried was acknowledged.
    func recordFailedFlush(_ reason: FlushSummary.Reason, start: DefaultTracerClock.Instant, jobs: Int, error: any Error) {
        let span = tracer.startSpan("flush", context: ServiceContext.topLevel, ofKind: .internal, at: start)
        span.attributes["lineup.flush.reason"] = "\(reason)"
        span.attributes["lineup.flush.jobs"] = jobs
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        span.end()
    }
}

/// Reads the trace context fields of a job file back for the tracer.
struct JobFileTraceExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }
}
