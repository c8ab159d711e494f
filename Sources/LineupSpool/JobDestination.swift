public import Foundation

/// Where a ``JobClient`` puts jobs: a spool directory (``SpoolDirectory``), or the jobs table
/// of a database (LineupPostgres's `JobDatabase`).
///
/// Both keep the spool's promise: a job file that is not valid goes in all the same, and the
/// daemon fails it alone, with its reason.
public protocol JobDestination: Sendable {
    /// Enqueues one job, named after its id, or the destination's own way when it has none.
    func enqueue(job: JobFile) throws -> EnqueueReceipt

    /// Enqueues the job lines of `contents` (one job file a line, JSON Lines) all at once: as
    /// one bulk file in a spool, in one transaction in a database. `name` names the batch: a
    /// database names its jobs `<name>.line<n>`.
    func enqueue(jobLines contents: Data, name: String) throws -> EnqueueReceipt
}

/// What an enqueue did.
public struct EnqueueReceipt: Sendable, Hashable {
    /// How many jobs went in (a database skips a job it holds already).
    public var jobs: Int
    /// Where they went: the job file or bulk file in the spool's `new/`, or the database's
    /// location (without its password).
    public var location: String

    /// Makes a receipt.
    public init(jobs: Int, location: String) {
        self.jobs = jobs
        self.location = location
    }
}
