public import Foundation
public import LineupSpool

/// A job as the jobs table holds it, for an operator's eyes (`lineup show --database`).
public struct StoredJob: Sendable {
    /// The name it was enqueued under.
    public var name: String
    /// The job file's `id`, if it has one.
    public var id: String?
    public var kind: String?
    public var state: JobState
    /// The job file as it was enqueued.
    public var contents: Data
    public var failedAttempts: Int
    public var interruptions: Int
    /// The host and process id of the daemon that holds it, while it runs.
    public var claimedBy: String?
    public var finishedAt: Date?
    /// Its result report (done) or failure report (failed), as JSON.
    public var report: String?
    /// Why it failed.
    public var reason: String?
    /// Whether an operator asked to cancel it and its daemon has not acted yet.
    public var cancellationRequested: Bool
}
