public import Foundation
public import LineupSpool

/// One job as the job browser lists it, from a spool's file or a jobs table's row.
public struct JobRow: Sendable, Hashable, Encodable {
    public var state: JobState
    /// The name it was enqueued under.
    public var name: String
    /// The job file's `id`, if it has one.
    public var id: String?
    /// Its kind; nil when its file cannot be read, and for a bulk file (its lines have theirs).
    public var kind: String?
    /// The queue it runs in (``QueueRouting``: the one its file names, else its kind's); nil:
    /// the default queue.
    public var queue: String?
    public var enqueuedAt: Date?
    /// When its last attempt started (done and failed jobs; a running job's claim on a database).
    public var startedAt: Date?
    public var finishedAt: Date?
    /// Its failed attempts so far, or, settled, the attempts it took.
    public var attempts: Int
    /// Why it failed.
    public var reason: String?
    /// The host of the daemon that holds or settled it, on a database.
    public var host: String?
    /// Whether it is a spool's bulk file (many jobs, one a line).
    public var isBulk: Bool

    public init(
        state: JobState, name: String, id: String? = nil, kind: String? = nil, queue: String? = nil, enqueuedAt: Date? = nil,
        startedAt: Date? = nil, finishedAt: Date? = nil, attempts: Int = 0, reason: String? = nil, host: String? = nil,
        isBulk: Bool = false
    ) {
        self.state = state
        self.name = name
        self.id = id
        self.kind = kind
        self.queue = queue
        self.enqueuedAt = enqueuedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.attempts = attempts
        self.reason = reason
        self.host = host
        self.isBulk = isBulk
    }
}
