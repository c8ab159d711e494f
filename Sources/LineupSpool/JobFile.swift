public import Foundation

/// A job file: what a producer drops in the spool and what the daemon runs.
///
/// A job file is one JSON object. `kind` is required; `id`, `after`, `afterSettled`, `maxAttempts`,
/// `baseDelay`, `timeout`, `uniqueKey`, `notBefore`, `priority`, `queue`, `uniqueFor`,
/// `traceparent` and `tracestate` are optional and mean the same for every kind; every other field belongs to
/// the kind, which decodes it with ``parameters(as:)``:
///
/// ```json
/// {"kind": "import-buoy", "input": "obs/42002.rss", "id": "buoy-42002", "maxAttempts": 5}
/// ```
///
/// ```swift
/// struct ImportParameters: Decodable { let input: String }
/// let job = try JobFile(data: bytes)
/// let parameters = try job.parameters(as: ImportParameters.self)   // input == "obs/42002.rss"
/// ```
///
/// Two job files are equal when their fields are equal, whatever their spacing or key order.
public struct JobFile: Sendable, Hashable {
    /// The fields every kind shares; a kind's own parameters may not use these names.
    public static let commonFields: Set<String> = [
        "kind", "id", "after", "afterSettled", "maxAttempts", "baseDelay", "timeout", "uniqueKey", "notBefore",
        "priority", "queue", "uniqueFor", "traceparent", "tracestate",
    ]

    /// The job kind, e.g. `"import-buoy"`; selects the task that runs the job.
    public let kind: String
    /// An identifier other jobs name in their `after` list.
    public let id: String?
    /// Ids of jobs that must finish before this one starts.
    public let after: [String]
    /// Whether the job runs once every job in ``after`` has settled, done or failed (a batch's
    /// callback that runs always). When false, the default, it runs once they are all done, and
    /// fails when one of them failed.
    public let afterSettled: Bool
    /// How many times the job may be attempted before it goes to `failed/`; nil means the
    /// daemon's default.
    public let maxAttempts: Int?
    /// The first retry delay (later retries back off from it); nil means the daemon's default.
    /// The file holds it as a number of seconds.
    public let baseDelay: Duration?
    /// How long one attempt may run before the daemon cancels it and fails the attempt as
    /// timed out; nil means the daemon's default for the kind (or no limit). The file holds it
    /// as a number of seconds.
    public let timeout: Duration?
    /// While a job with this key is queued or running in a daemon, another one with the same key
    /// is refused: it fails at once, naming the job that holds the key. Once that job has finished
    /// running (it may still wait for the flush that acknowledges it) or failed, the key is free
    /// again.
    public let uniqueKey: String?
    /// The job runs at this time or later (an ISO 8601 time in the file, e.g.
    /// `"2026-11-24T06:00:00Z"`); a daemon leaves it queued until then.
    public let notBefore: Date?
    /// The W3C `traceparent` of the span that enqueued the job (checked: see ``TraceParent``), so
    /// that its attempts' spans are that span's children. A job made where a trace context is
    /// current (`ServiceContext.current`, with a tracer bootstrapped) gets it by itself.
    public let traceparent: String?
    /// The W3C `tracestate` that came with ``traceparent``, carried as it is.
    public let tracestate: String?
    /// Every field of the file, the common ones included.
    public let fields: [String: JSONValue]

    /// The bytes the file was parsed from, so that ``parameters(as:)`` decodes the original
    /// text (exact numbers, no re-encoding). Not part of equality.
    private let source: Data?
    /// Where the file came from, for error messages. Not part of equality.
    private let path: String?

    /// Parses a job file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: where the bytes came from; errors name it.
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/malformedJobFile`` (not JSON, with
    ///   the position; not an object), ``SpoolError/Code/missingField`` (no `kind`) or
    ///   ``SpoolError/Code/invalidField`` (a common field of the wrong type or value).
    public init(data: Data, path: String? = nil) throws(SpoolError) {
        try self.init(fields: Self.decodeObject(data, path: path), source: data, path: path)
    }

    /// Makes a job file for a producer to enqueue.
    ///
    /// - Parameter parameters: the kind's own fields; they may not use the names of
    ///   ``commonFields``.
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/invalidField`` when a value is
    ///   invalid (an empty kind, `maxAttempts` below 1, a negative or non-finite delay, a
    ///   timeout that is not above 0) or a parameter reuses a common name.
    public init(
        kind: String,
        id: String? = nil,
        after: [String] = [],
        afterSettled: Bool = false,
        maxAttempts: Int? = nil,
        baseDelay: Duration? = nil,
        timeout: Duration? = nil,
        uniqueKey: String? = nil,
        notBefore: Date? = nil,
        parameters: [String: JSONValue] = [:]
    ) throws(SpoolError) {
        if let clash = parameters.keys.sorted().first(where: { Self.commonFields.contains($0) }) {
            throw SpoolError(
                code: .invalidField,
                path: nil,
                message: "parameter `\(clash)` clashes with the common job field of that name"
            )
        }
        var fields = parameters
        fields["kind"] = .string(kind)
        if let id { fields["id"] = .string(id) }
        if !after.isEmpty { fields["after"] = .array(after.map { .string($0) }) }
        if afterSettled { fields["afterSettled"] = .bool(true) }
        if let maxAttempts { fields["maxAttempts"] = .integer(maxAttempts) }
        if let baseDelay { fields["baseDelay"] = .number(baseDelay.timeInterval) }
        if let timeout { fields["timeout"] = .number(timeout.timeInterval) }
        if let uniqueKey { fields["uniqueKey"] = .string(uniqueKey) }
        if let notBefore { fields["notBefore"] = .string(CommonFields.iso8601Text(notBefore)) }
        try self.init(fields: Self.addingCurrentTraceContext(to: fields), source: nil, path: nil)
    }

    /// The same job with `changes` made to its fields, checked as a new file is.
    func replacing(_ changes: [String: JSONValue]) throws(SpoolError) -> JobFile {
        try JobFile(fields: fields.merging(changes) { $1 }, source: nil, path: path)
    }

    /// The kind's own fields: ``fields`` without ``commonFields``.
    public var parameters: [String: JSONValue] {
        fields.filter { !Self.commonFields.contains($0.key) }
    }

    /// Decodes the whole job object (common fields included, so a type may read `id` too)
    /// into the kind's parameter type. Fields the type does not declare are ignored.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/missingField`` or
    ///   ``SpoolError/Code/invalidField`` naming the field, and the job file when known.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type = Parameters.self)
        throws(SpoolError) -> Parameters
    {
        let data: Data
        if let source {
            data = source
        } else {
            data = try encoded()
        }
        do {
            return try JSONDecoder().decode(Parameters.self, from: data)
        } catch let error as DecodingError {
            throw Self.spoolError(describing: error, path: path)
        } catch let error as SpoolError {
            throw error
        } catch {
            throw SpoolError(code: .invalidField, path: path, message: "cannot decode parameters: \(error)")
        }
    }

    /// The file as compact JSON with sorted keys, ready to enqueue.
    public func encoded() throws(SpoolError) -> Data {
        do {
            return Data(try JSONTextWriter.text(of: .object(fields), style: .compact))
        } catch {
            throw SpoolError(code: .invalidField, path: path, message: "cannot encode job file: \(error.message)")
        }
    }

    public static func == (lhs: JobFile, rhs: JobFile) -> Bool {
        lhs.fields == rhs.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    /// Internal rather than private: `JobFile+Options.swift` adds the options that this file's
    /// public initializer has no parameter for.
    init(fields: [String: JSONValue], source: Data?, path: String?) throws(SpoolError) {
        let common = try CommonFields(fields, path: path)
        self.kind = common.kind
        self.id = common.id
        self.after = common.after
        self.afterSettled = common.afterSettled
        self.maxAttempts = common.maxAttempts
        self.baseDelay = common.baseDelay.map(Duration.init(jobFileSeconds:))
        self.timeout = common.timeout.map(Duration.init(jobFileSeconds:))
        self.uniqueKey = common.uniqueKey
        self.notBefore = common.notBefore
        self.traceparent = common.traceparent
        self.tracestate = common.tracestate
        self.fields = fields
        self.source = source
        self.path = path
    }
}

extension JobFile: Codable {
    /// Decodes a job file from a JSON object. Validation errors are thrown as ``SpoolError``.
    public init(from decoder: any Decoder) throws {
        let fields = try [String: JSONValue](from: decoder)
        try self.init(fields: fields, source: nil, path: nil)
    }

    /// Encodes the job file as its flat JSON object.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
    }
}
