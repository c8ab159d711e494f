public import Foundation

/// What a producer may say about a job beside its kind and parameters: the common fields of a
/// job file (DESIGN §4), typed.
///
/// ```swift
/// let options = JobOptions(id: "stats-2026-11", after: ["import-2026-11"], timeout: .seconds(600))
/// try client.enqueue("statistics", StatisticsParameters(output: "stats"), options: options)
/// ```
public struct JobOptions: Sendable, Hashable {
    /// An id that other jobs can name in their `after`; the job is named after it.
    public var id: String?
    /// Ids of jobs that must be done first (or settled, done or failed, with ``afterSettled``).
    public var after: [String]
    /// Whether the job runs once every job in ``after`` has settled, failed ones included,
    /// rather than only once all are done.
    public var afterSettled: Bool
    /// Attempts before the job fails for good (the daemon's default when nil).
    public var maxAttempts: Int?
    /// The first retry's delay; later ones double it (the daemon's default when nil).
    public var baseDelay: Duration?
    /// How long one attempt may run before it is cancelled and fails as timed out.
    public var timeout: Duration?
    /// The job is refused while another job with this key is queued or running.
    public var uniqueKey: String?
    /// The job runs at this time or later.
    public var notBefore: Date?
    /// Where the job goes in its queue's claim order: 0 first, 9 last (``JobFile/priorities``);
    /// ``JobFile/defaultPriority`` when nil.
    public var priority: Int?
    /// The queue that runs the job, whatever its kind; the kind's queue when nil.
    public var queue: String?
    /// With ``uniqueKey``: the key stays taken for this long after a job holding it is done.
    public var uniqueFor: Duration?

    /// Makes options; each one left out takes the daemon's default.
    public init(
        id: String? = nil, after: [String] = [], afterSettled: Bool = false, maxAttempts: Int? = nil, baseDelay: Duration? = nil,
        timeout: Duration? = nil, uniqueKey: String? = nil, notBefore: Date? = nil,
        priority: Int? = nil, queue: String? = nil, uniqueFor: Duration? = nil
    ) {
        self.id = id
        self.after = after
        self.afterSettled = afterSettled
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.timeout = timeout
        self.uniqueKey = uniqueKey
        self.notBefore = notBefore
        self.priority = priority
        self.queue = queue
        self.uniqueFor = uniqueFor
    }

}
