public import Foundation
public import LineupSpool
public import LineupStore
public import Logging

/// Everything a job kind's factory needs to validate a job and make its ``JobTask``: the job
/// file, where it may read and write, the container to work in, and a logger with the job in
/// its metadata.
///
/// Its helpers turn spool errors into ``JobError``s that name the job file, so that a factory
/// can simply `try` them:
///
/// ```swift
/// registry.register("export-csv") { request in
///     struct Parameters: Decodable { let entity: String; let output: String }
///     let parameters = try request.parameters(as: Parameters.self)   // .invalidParameters if not
///     return ExportTask(request: request, entity: parameters.entity, output: parameters.output)
/// }
/// ```
public struct JobRequest: Sendable {
    /// The job's id: the job file's `id`, or its spool name when it has none. Contexts and log
    /// lines are named after it.
    public let jobID: String
    /// The job's name as it was enqueued (several jobs may share it; see `ClaimedJob.claim`).
    public let name: String
    /// The parsed job file.
    public let file: JobFile
    /// The job file as errors name it: in the daemon, its name as it was enqueued
    /// (`<name>.job.json`; its path in `active/` carries the spool's tags and moves on);
    /// for `lineup run`, its path.
    public let jobFilePath: String
    /// Which attempt this is, from 1.
    public let attempt: Int
    /// How many times a daemon stopped while running this job before.
    public let interruptions: Int
    /// Where the job may read (`input`) and write (`output`).
    public let paths: PathPolicy
    /// The stack the job works in; the task gets a private child of its main context.
    public let container: PersistentContainer
    /// A logger with `job`, `kind` and `attempt` in its metadata.
    public let logger: Logger
    /// Reads the report of a settled job by id (the runner's job storage).
    private let settledReport: @Sendable (String) -> DependencyReport?

    /// Makes a request; the logger gets `job`, `kind` and `attempt` added to its metadata. The
    /// runner makes these, as do `lineup run` and tests.
    public init(
        jobID: String, name: String, file: JobFile, jobFilePath: String, attempt: Int = 1,
        interruptions: Int = 0, paths: PathPolicy, container: PersistentContainer, logger: Logger,
        settledReport: @escaping @Sendable (String) -> DependencyReport? = { _ in nil }
    ) {
        self.settledReport = settledReport
        self.jobID = jobID
        self.name = name
        self.file = file
        self.jobFilePath = jobFilePath
        self.attempt = attempt
        self.interruptions = interruptions
        self.paths = paths
        self.container = container
        var logger = logger
        // One change of the handler's metadata rather than three: a handler may redo work on
        // each (swift-log's StreamLogHandler re-renders all of it).
        logger.handler.metadata.merge(["job": .string(jobID), "kind": .string(file.kind), "attempt": .string(String(attempt))]) { $1 }
        self.logger = logger
    }

    /// The job kind.
    public var kind: String { file.kind }

    /// The reports of the jobs in the job file's `after` list, by id: a batch's callback reads
    /// what its jobs did. The runner starts a job only once they are settled, so each has its
    /// report; a report that cannot be read (its files removed, its row pruned) is left out.
    /// Empty outside a daemon (`lineup run`).
    public func dependencyReports() -> [String: DependencyReport] {
        var reports: [String: DependencyReport] = [:]
        for id in file.after {
            reports[id] = settledReport(id)
        }
        return reports
    }

    /// Decodes the job file into the kind's parameter type.
    ///
    /// - Throws: ``JobError`` ``JobError/Code/invalidParameters`` (not retryable) naming the
    ///   field and the job file.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type = Parameters.self) throws(JobError)
        -> Parameters
    {
        do {
            return try file.parameters(as: type)
        } catch {
            // The error is about the job file, which the job error names already: say it once.
            throw jobError(from: SpoolError(code: error.code, path: nil, message: error.message))
        }
    }

    /// Resolves a path the job reads, relative to the input directory.
    ///
    /// - Throws: ``JobError`` ``JobError/Code/pathOutsideAllowedDirectory`` (absolute, `..`
    ///   out, a symbolic link out), ``JobError/Code/inputNotFound`` or
    ///   ``JobError/Code/invalidParameters``; none is retryable.
    public func resolveInput(_ path: String) throws(JobError) -> URL {
        do {
            return try paths.resolveInput(path)
        } catch {
            throw jobError(from: error)
        }
    }

    /// Resolves a path the job writes, relative to the output directory (the file may not
    /// exist yet; its directory must).
    ///
    /// - Throws: ``JobError`` as ``resolveInput(_:)`` does.
    public func resolveOutput(_ path: String) throws(JobError) -> URL {
        do {
            return try paths.resolveOutput(path)
        } catch {
            throw jobError(from: error, missing: .outputUnavailable)
        }
    }

    /// A spool error as a job error that names the job file.
    ///
    /// - Parameter missing: the code for a file or directory that is not there
    ///   (``JobError/Code/inputNotFound`` for what a job reads).
    public func jobError(from error: SpoolError, missing: JobError.Code = .inputNotFound) -> JobError {
        let code: JobError.Code
        var retryable: Bool? = nil
        switch error.code {
        case .malformedJobFile: code = .malformedJobFile
        case .pathOutsideAllowedDirectory: code = .pathOutsideAllowedDirectory
        case .notFound: code = missing
        case .io:
            code = .jobFailed
            retryable = true
        default: code = .invalidParameters
        }
        return JobError(code, error.description, jobFile: jobFilePath, isRetryable: retryable, underlying: error)
    }
}
