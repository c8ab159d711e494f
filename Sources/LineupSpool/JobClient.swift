public import Foundation

/// Enqueues jobs from Swift code, typed, into a spool or a database's jobs table: what
/// `lineup enqueue` does, and the way it does it.
///
/// ```swift
/// struct Statistics: Encodable, Sendable { let output: String }
///
/// let client = JobClient(spool: try SpoolDirectory(root: spoolURL))     // or JobClient(destination: jobDatabase)
/// try client.enqueue("statistics", Statistics(output: "stats"), options: JobOptions(id: "stats", timeout: .seconds(600)))
/// try client.enqueue(contentsOf: stations.map { try JobFile(kind: "import-buoy", parameters: ["input": .string($0)]) })
/// ```
///
/// A job that must exist exactly when your own data is saved is enqueued in that save instead:
/// `context.enqueue(_:)` (see the article "Enqueue with your data").
public struct JobClient: Sendable {
    /// Where the jobs go.
    public let destination: any JobDestination

    /// A client that writes into `destination`.
    public init(destination: any JobDestination) {
        self.destination = destination
    }

    /// A client that writes job files into `spool`.
    public init(spool: SpoolDirectory) {
        self.init(destination: spool)
    }

    /// Enqueues a job of `kind` with `parameters` encoded as its fields.
    ///
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` for parameters that are not a
    ///   JSON object or an invalid option, before anything is written; the destination's error
    ///   when it cannot take the job.
    @discardableResult
    public func enqueue(_ kind: String, _ parameters: some Encodable, options: JobOptions = JobOptions()) throws
        -> EnqueueReceipt
    {
        try destination.enqueue(job: JobFile(kind: kind, parameters: parameters, options: options))
    }

    /// Enqueues a job file.
    @discardableResult
    public func enqueue(_ job: JobFile) throws -> EnqueueReceipt {
        try destination.enqueue(job: job)
    }

    /// Enqueues `jobs` all at once: one bulk file in a spool (one rename makes them all visible),
    /// one transaction in a database. `name` names the batch (a database's jobs are
    /// `<name>.line<n>`).
    ///
    /// - Precondition: `jobs` is not empty.
    @discardableResult
    public func enqueue(contentsOf jobs: [JobFile], name: String = "jobs") throws -> EnqueueReceipt {
        precondition(!jobs.isEmpty, "enqueue(contentsOf:) needs at least one job")
        return try destination.enqueue(jobLines: SpoolDirectory.jobLines(of: jobs), name: name)
    }

    /// Enqueues job lines as they are (one job file a line, JSON Lines), all at once; a line
    /// that is not a valid job goes in and fails alone in the daemon.
    @discardableResult
    public func enqueue(jobLines contents: Data, name: String) throws -> EnqueueReceipt {
        try destination.enqueue(jobLines: contents, name: name)
    }
}
