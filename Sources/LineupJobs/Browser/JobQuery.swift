public import Foundation
public import LineupSpool

/// What the job browser asks for (`GET /api/jobs`, `POST /api/jobs/bulk`): the jobs in some
/// states, of some kinds, enqueued or finished within some times, whose id or name holds some
/// text, a page at a time from a cursor.
///
/// A queue is asked for by name (``queue``), with the rule that says which queue a job runs in
/// (``routing``, the daemon's ``QueueRouting``): a source of jobs evaluates that rule on each
/// job's kind and the queue its file names, and shows each row's queue by it.
public struct JobQuery: Sendable, Hashable {
    /// The queue whose jobs a query lists.
    public enum QueueFilter: Sendable, Hashable {
        /// The named queue.
        case named(String)
        /// The default queue: the jobs that ``routing`` runs in no named queue.
        case defaultQueue
    }

    /// The states to list, in this order; empty: every state (queued, running, done, failed).
    public var states: [JobState]
    /// Only jobs of these kinds; nil: any kind.
    public var kinds: Set<String>?
    /// Only the jobs that run in this queue by ``routing``; nil: any queue.
    public var queue: QueueFilter?
    /// Which queue a job runs in: what ``queue`` filters by, and each row's ``JobRow/queue``.
    public var routing: QueueRouting
    /// Text that the job's id or its enqueued name contains; nil: any job.
    public var search: String?
    public var enqueuedAfter: Date?
    public var enqueuedBefore: Date?
    public var finishedAfter: Date?
    public var finishedBefore: Date?
    /// Where the previous page stopped (its ``JobPage/next``); nil: from the newest job.
    public var cursor: String?
    /// How many jobs a page holds at most.
    public var limit: Int

    /// The largest page one request may ask for.
    public static let maximumLimit = 500

    public init(
        states: [JobState] = [], kinds: Set<String>? = nil, queue: QueueFilter? = nil, routing: QueueRouting = QueueRouting(),
        search: String? = nil,
        enqueuedAfter: Date? = nil, enqueuedBefore: Date? = nil, finishedAfter: Date? = nil, finishedBefore: Date? = nil,
        cursor: String? = nil, limit: Int = 50
    ) {
        self.states = states
        self.kinds = kinds
        self.queue = queue
        self.routing = routing
        self.search = search
        self.enqueuedAfter = enqueuedAfter
        self.enqueuedBefore = enqueuedBefore
        self.finishedAfter = finishedAfter
        self.finishedBefore = finishedBefore
        self.cursor = cursor
        self.limit = min(max(limit, 1), Self.maximumLimit)
    }

    /// The states listed: ``states``, or all of them.
    public var listedStates: [JobState] { states.isEmpty ? JobState.allCases : states }

    /// Whether a filter needs the job's kind or the queue its file names, which a spool keeps
    /// inside the file.
    public var filtersOnKind: Bool { kinds != nil || queue != nil }

    /// Whether a job of `kind` whose file names `namedQueue` passes the kind and queue filters;
    /// a job whose kind is unknown (a file that cannot be read, a bulk file) passes only when no
    /// kind or queue is asked for.
    public func admits(kind: String?, namedQueue: String?) -> Bool {
        guard filtersOnKind else { return true }
        guard let kind else { return false }
        if let kinds, !kinds.contains(kind) { return false }
        guard let queue else { return true }
        let runsIn = routing.queue(forJobNamed: namedQueue, kind: kind)
        switch queue {
        case let .named(name): return runsIn == name
        case .defaultQueue: return runsIn == nil
        }
    }

    /// Whether `date` lies within `after` and `before` (either may be open); an unknown date
    /// passes only an open range.
    static func contains(_ date: Date?, after: Date?, before: Date?) -> Bool {
        if after == nil, before == nil { return true }
        guard let date else { return false }
        return (after.map { date >= $0 } ?? true) && (before.map { date < $0 } ?? true)
    }

    public func admits(enqueuedAt: Date?) -> Bool { Self.contains(enqueuedAt, after: enqueuedAfter, before: enqueuedBefore) }
    public func admits(finishedAt: Date?) -> Bool { Self.contains(finishedAt, after: finishedAfter, before: finishedBefore) }
    public var filtersOnEnqueueTime: Bool { enqueuedAfter != nil || enqueuedBefore != nil }
    public var filtersOnFinishTime: Bool { finishedAfter != nil || finishedBefore != nil }
}
