/// Why a job failed, in a form a program can switch on and a person can read.
///
/// The ``description`` names the job file (``jobFile``) when it is known, after the problem, so that it can be
/// written as-is into a log line or a failure report. ``isRetryable`` tells the runner whether
/// another attempt could succeed: bad input (a malformed file, an unknown kind, a missing
/// parameter, a path outside the allowed directories) fails at once, without retries.
///
/// Tasks throw it too, e.g. for a job-level problem that a retry cannot fix:
///
/// ```swift
/// throw JobError(.invalidParameters, "field `entity` names no entity of the model", isRetryable: false)
/// ```
public struct JobError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case malformedJobFile, unknownKind, invalidParameters, pathOutsideAllowedDirectory,
                inputNotFound, outputUnavailable, dependencyFailed, dependencyCycle, unknownDependency, duplicateJob, cancelled,
                cancelledByOperator, timedOut, jobFailed
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The job file is not a JSON object, or it cannot be read. Not retryable.
        public static let malformedJobFile = Code(.malformedJobFile)
        /// No task is registered for the job's `kind`. Not retryable.
        public static let unknownKind = Code(.unknownKind)
        /// A parameter is missing, of the wrong type, or has an impossible value. Not retryable.
        public static let invalidParameters = Code(.invalidParameters)
        /// A path is absolute, climbs out with `..`, or resolves outside the input or output
        /// directory. Not retryable.
        public static let pathOutsideAllowedDirectory = Code(.pathOutsideAllowedDirectory)
        /// An input file the job names does not exist. Not retryable.
        public static let inputNotFound = Code(.inputNotFound)
        /// The directory an output of the job is to be written in does not exist or cannot be
        /// used. Not retryable.
        public static let outputUnavailable = Code(.outputUnavailable)
        /// A job named in `after` failed, so this one cannot run. Not retryable.
        public static let dependencyFailed = Code(.dependencyFailed)
        /// The `after` lists form a cycle (a job waits, directly or not, for itself). Not
        /// retryable.
        public static let dependencyCycle = Code(.dependencyCycle)
        /// A job named in `after` was not seen within the daemon's dependency wait timeout.
        /// Not retryable.
        public static let unknownDependency = Code(.unknownDependency)
        /// Another job with the same `uniqueKey` is queued or running. Not retryable.
        public static let duplicateJob = Code(.duplicateJob)
        /// The task was cancelled (the daemon is shutting down). The runner returns the job to
        /// `new/` rather than failing it.
        public static let cancelled = Code(.cancelled)
        /// An operator cancelled the job (`lineup cancel`, the API or the dashboard): a job that
        /// was running stopped, and what it had not saved was discarded. Not retryable.
        public static let cancelledByOperator = Code(.cancelledByOperator)
        /// The attempt ran past its time limit (the job file's `timeout`, or the daemon's for
        /// the kind) and was cancelled. Retryable: the next attempt may be quicker. Not
        /// retryable when the task did not stop once cancelled.
        public static let timedOut = Code(.timedOut)
        /// The task failed for a reason of its own; retryable unless the task says otherwise.
        public static let jobFailed = Code(.jobFailed)

        /// Whether an error with this code is retried unless the thrower says otherwise.
        public var isRetryableByDefault: Bool {
            switch value {
            case .cancelled, .timedOut, .jobFailed: true
            default: false
            }
        }

        /// The code in words (`"unknown kind"`), as reports and log lines show it.
        public var description: String {
            switch value {
            case .malformedJobFile: "malformed job file"
            case .unknownKind: "unknown kind"
            case .invalidParameters: "invalid parameters"
            case .pathOutsideAllowedDirectory: "path outside allowed directory"
            case .inputNotFound: "input not found"
            case .outputUnavailable: "output unavailable"
            case .dependencyFailed: "dependency failed"
            case .duplicateJob: "duplicate job"
            case .dependencyCycle: "dependency cycle"
            case .unknownDependency: "unknown dependency"
            case .cancelled: "cancelled"
            case .cancelledByOperator: "cancelled by an operator"
            case .timedOut: "timed out"
            case .jobFailed: "job failed"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A sentence that explains the problem (without the job file, which ``description`` adds).
    public var message: String
    /// The job file involved, when known. The runner fills it in for errors thrown by tasks.
    public var jobFile: String?
    /// Whether another attempt could succeed.
    public var isRetryable: Bool
    /// The error this one wraps, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence that explains the problem, without the job file (``description``
    ///     adds it).
    ///   - jobFile: the job file involved, when known; the runner fills it in for errors thrown
    ///     by tasks.
    ///   - isRetryable: nil takes the code's default (``Code/isRetryableByDefault``).
    ///   - underlying: the error this one wraps, if any.
    public init(
        _ code: Code, _ message: String, jobFile: String? = nil, isRetryable: Bool? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.jobFile = jobFile
        self.isRetryable = isRetryable ?? code.isRetryableByDefault
        self.underlying = underlying
    }

    /// The same error, naming `jobFile` unless it already names one.
    public func naming(jobFile path: String) -> JobError {
        var copy = self
        if copy.jobFile == nil { copy.jobFile = path }
        return copy
    }

    /// `"<code>: <message> (job file <job file>)"`, or without the file when none is known.
    ///
    /// What went wrong leads, with what the operator gave (a path, a parameter) early in the
    /// message; the spool file's long name, which holds the job's id, follows.
    public var description: String {
        if let jobFile {
            return "\(code): \(message) (job file \(jobFile))"
        }
        return "\(code): \(message)"
    }
}

extension JobError: RetryableError {}
