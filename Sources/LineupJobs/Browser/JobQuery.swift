public import Foundation
public import LineupSpool

/// What the job browser asks for (`GET /api/jobs`, `POST /api/jobs/bulk`): the jobs in some
/// states, of some kinds, enqueued or finished within some times, whose id or name holds some
/// text, a page at a time from a cursor.
///
/// A queue is asked for as the kinds it runs (``kinds``), or, for the default queue, as every
/// kind but those of the named queues (``excludedKinds``): the browser resolves it, so that a
/// source of jobs needs to know nothing of queues.
public struct JobQuery: Sendable, Hashable {
    /// The states to list, in this order; empty: every state (queued, running, done, failed).
    public var states: [JobState]
    /// Only jobs of these kinds; nil: any kind.
    public var kinds: Set<String>?
    /// No job of these kinds.
    public var excludedKinds: Set<String>
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
        states: [JobState] = [], kinds: Set<String>? = nil, excludedKinds: Set<String> = [], search: String? = nil,
        enqueuedAfter: Date? = nil, enqueuedBefore: Date? = nil, finishedAfter: Date? = nil, finishedBefore: Date? = nil,
        cursor: String? = nil, limit: Int = 50
    ) {
        self.states = states
        self.kinds = kinds
        self.excludedKinds = excludedKinds
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

    /// Whether a filter needs the job's kind, which a spool keeps inside the file.
    public var filtersOnKind: Bool { kinds != nil || !excludedKinds.isEmpty }

    /// Whether a job of `kind` passes the kind filters; a job whose kind is unknown (a file that
    /// cannot be read, a bulk file) passes only when no kind is asked for.
    public func admits(kind: String?) -> Bool {
        guard filtersOnKind else { return true }
        guard let kind else { return false }
        return (kinds?.contains(kind) ?? true) && !excludedKinds.contains(kind)
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
