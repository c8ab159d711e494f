import Foundation

extension JobFile {
    /// Makes a job file of `kind` whose parameters are `parameters` encoded as a JSON object,
    /// with `options` as its common fields.
    ///
    /// ```swift
    /// struct AddNote: Codable, Sendable { let text: String }
    /// let job = try JobFile(kind: "add-note", parameters: AddNote(text: "hello"), options: JobOptions(uniqueKey: "hello"))
    /// ```
    ///
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` when `parameters` does not
    ///   encode as a JSON object, uses a common field's name, or an option is invalid (see
    ///   ``init(kind:id:after:afterSettled:maxAttempts:baseDelay:timeout:uniqueKey:notBefore:parameters:)``).
    public init(kind: String, parameters: some Encodable, options: JobOptions = JobOptions()) throws(SpoolError) {
        let fields: [String: JSONValue]
        do {
            fields = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(parameters))
        } catch {
            throw SpoolError(
                code: .invalidField, path: nil,
                message: "the parameters of a \(kind) job must encode as a JSON object: \(error)")
        }
        try self.init(kind: kind, parameters: fields, options: options)
    }

    /// Makes a job file of `kind` with `parameters` as its own fields and `options` as its
    /// common fields.
    ///
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` as
    ///   ``init(kind:id:after:afterSettled:maxAttempts:baseDelay:timeout:uniqueKey:notBefore:parameters:)`` does.
    public init(kind: String, parameters: [String: JSONValue], options: JobOptions) throws(SpoolError) {
        let base = try JobFile(
            kind: kind, id: options.id, after: options.after, afterSettled: options.afterSettled, maxAttempts: options.maxAttempts,
            baseDelay: options.baseDelay, timeout: options.timeout,
            uniqueKey: options.uniqueKey, notBefore: options.notBefore, parameters: parameters)
        // The options that the memberwise initializer has no parameter for, checked as a file's are.
        var fields = base.fields
        if let priority = options.priority { fields["priority"] = .integer(priority) }
        if let queue = options.queue { fields["queue"] = .string(queue) }
        if let uniqueFor = options.uniqueFor { fields["uniqueFor"] = .number(uniqueFor.timeInterval) }
        // Given trace context replaces the current one, and its tracestate goes with it.
        if options.traceparent != nil || options.tracestate != nil {
            fields["traceparent"] = options.traceparent.map { JSONValue.string($0) }
            fields["tracestate"] = options.tracestate.map { JSONValue.string($0) }
        }
        if fields == base.fields {
            self = base
        } else {
            try self.init(fields: fields, source: nil, path: nil)
        }
    }
}

extension Duration {
    /// The duration a job file's number of seconds gives (`baseDelay`, `timeout`, `uniqueFor`):
    /// in Swift a delay is a `Duration`, in the JSON file a number of seconds. Clamped to
    /// 0...1e9 s, which Int64 nanoseconds hold; the fields' own checks refuse far less.
    package init(jobFileSeconds seconds: Double) {
        self = .nanoseconds(Int64(min(max(seconds, 0), 1e9) * 1e9))
    }

    /// The duration in seconds: what a job file writes for it, and what `Date` arithmetic takes.
    package var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
