import LineupSpool

/// The job kinds a daemon knows: each kind string maps to a factory that validates a job
/// file's parameters and makes the ``JobTask`` that runs it.
///
/// Domain modules register their kinds; the daemon only looks them up:
///
/// ```swift
/// var registry = JobRegistry()
/// registry.register("statistics", parameters: StatisticsParameters.self) { request, parameters in
///     StatisticsTask(request: request, output: parameters.output)
/// }
/// ```
///
/// The factory runs once per attempt, when the job is claimed and before each retry; it should
/// check what it can without side effects and leave the work to the task. What it throws fails
/// the job at once (no retry) unless the error is a retryable ``RetryableError``.
public struct JobRegistry: Sendable {
    /// Makes the task for a job, or throws why the job's parameters are not acceptable.
    public typealias Factory = @Sendable (JobRequest) throws -> JobTask

    private var factories: [String: Factory] = [:]

    /// Makes an empty registry; a daemon with it fails every job as of an unknown kind.
    public init() {}

    /// Registers a kind.
    ///
    /// - Precondition: the kind is not empty and not registered yet.
    public mutating func register(_ kind: String, factory: @escaping Factory) {
        precondition(!kind.isEmpty, "a job kind must not be empty")
        precondition(factories[kind] == nil, "job kind \(kind) is registered twice")
        factories[kind] = factory
    }

    /// Registers a kind whose parameters decode into `Parameters`; a missing or mistyped field
    /// fails the job with ``JobError/Code/invalidParameters`` naming the field.
    public mutating func register<Parameters: Decodable & Sendable>(
        _ kind: String, parameters: Parameters.Type,
        factory: @escaping @Sendable (JobRequest, Parameters) throws -> JobTask
    ) {
        register(kind) { request in
            try factory(request, try request.parameters(as: Parameters.self))
        }
    }

    /// The registered kinds, sorted.
    public var kinds: [String] {
        factories.keys.sorted()
    }

    /// Whether `kind` is registered.
    public func contains(_ kind: String) -> Bool {
        factories[kind] != nil
    }

    /// Makes the task for `request`.
    ///
    /// - Throws: ``JobError`` naming the job file: ``JobError/Code/unknownKind`` (with the
    ///   known kinds) when no factory is registered for the kind, otherwise what the factory
    ///   threw, as a ``JobError`` (not retryable unless the error says it is).
    public func makeTask(for request: JobRequest) throws(JobError) -> JobTask {
        guard let factory = factories[request.kind] else {
            let known = kinds.isEmpty ? "none" : kinds.joined(separator: ", ")
            throw JobError(
                .unknownKind, "no task is registered for kind \"\(request.kind)\" (known kinds: \(known))",
                jobFile: request.jobFilePath)
        }
        do {
            return try factory(request)
        } catch let error as JobError {
            throw error.naming(jobFile: request.jobFilePath)
        } catch let error as SpoolError {
            throw request.jobError(from: error)
        } catch {
            let retryable = (error as? any RetryableError)?.isRetryable ?? false
            throw JobError(
                retryable ? .jobFailed : .invalidParameters, "\(request.kind): \(error)",
                jobFile: request.jobFilePath, isRetryable: retryable, underlying: error)
        }
    }
}
