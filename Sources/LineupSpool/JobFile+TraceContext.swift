import Instrumentation

extension JobFile {
    /// The job file's fields of the W3C Trace Context: the enqueuer's `traceparent`, and its
    /// `tracestate` (vendors' data, carried as it is).
    static let traceContextFields: [String] = ["traceparent", "tracestate"]

    /// The longest `tracestate` the W3C specification lets a carrier keep.
    static let tracestateLimit = 512

    /// Reads and checks `traceparent` and `tracestate`; a `tracestate` without a `traceparent` is
    /// refused, as it belongs to no trace.
    static func traceContext(
        of reader: JobFileFieldReader
    ) throws(SpoolError) -> (traceparent: String?, tracestate: String?) {
        let traceparent = try reader.string("traceparent")
        if let traceparent {
            do {
                _ = try TraceParent(traceparent)
            } catch {
                throw SpoolError(code: error.code, path: reader.path, message: error.message)
            }
        }
        guard let tracestate = try reader.string("tracestate") else { return (traceparent, nil) }
        guard traceparent != nil else {
            throw reader.invalid("field `tracestate` needs a `traceparent` field beside it")
        }
        guard tracestate.utf8.count <= tracestateLimit,
            tracestate.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E })
        else {
            throw reader.invalid("field `tracestate` must be printable ASCII of at most \(tracestateLimit) characters")
        }
        return (traceparent, tracestate)
    }

    /// Adds the trace context current where the job is made (`ServiceContext.current`), as the
    /// bootstrapped instrument writes it (a W3C propagator writes `traceparent`), unless `fields`
    /// has one already. Without a current context, or with no instrument bootstrapped, `fields`
    /// stays as it is; a value that is not valid W3C is left out rather than fail the enqueue.
    static func addingCurrentTraceContext(to fields: [String: JSONValue]) -> [String: JSONValue] {
        guard fields["traceparent"] == nil, let context = ServiceContext.current else { return fields }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: TraceContextInjector())
        guard let traceparent = carrier["traceparent"], (try? TraceParent(traceparent)) != nil else { return fields }
        var fields = fields
        fields["traceparent"] = .string(traceparent)
        if let tracestate = carrier["tracestate"], !tracestate.isEmpty, tracestate.utf8.count <= tracestateLimit {
            fields["tracestate"] = .string(tracestate)
        }
        return fields
    }
}

/// Writes what an instrument propagates into a job file's fields, under the lower-case names of
/// the W3C headers (the instrument may spell them otherwise).
struct TraceContextInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }
}
