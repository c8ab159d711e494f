/// The one rule that says which queue a job runs in (DESIGN §10): the queue its file names
/// (`queue`) when this daemon configures it, else its kind's queue, else the default queue.
///
/// The runner's choice of `OperationQueue`, the pauses and limits of a queue, the claim
/// statement on PostgreSQL (from ``jsonObject``), the browser's queue filter and each row's
/// queue all ask this value, made from ``DaemonConfiguration/queues``. A job that names a
/// queue this daemon has not configured runs in its kind's queue, as if it named none.
public struct QueueRouting: Sendable, Hashable {
    /// The named queue of each kind that runs in one.
    public let queueOfKind: [String: String]
    /// The names of the configured queues.
    public let queueNames: Set<String>

    /// The rule of the queues `queues`; none: every job runs in the default queue.
    public init(_ queues: [String: DaemonConfiguration.NamedQueue] = [:]) {
        var queueOfKind: [String: String] = [:]
        // In name order, so that a kind listed by two queues (which the configuration file
        // refuses) goes to one of them whatever the dictionary's order.
        for (name, queue) in queues.sorted(by: { $0.key < $1.key }) {
            for kind in queue.kinds where queueOfKind[kind] == nil { queueOfKind[kind] = name }
        }
        self.queueOfKind = queueOfKind
        queueNames = Set(queues.keys)
    }

    /// The queue a job runs in: `named` (its file's `queue`) when this daemon configures it,
    /// else the queue of `kind`; nil: the default queue.
    public func queue(forJobNamed named: String?, kind: String?) -> String? {
        if let named, queueNames.contains(named) { return named }
        return kind.flatMap { queueOfKind[$0] }
    }

    /// Whether `named` (a job file's `queue`) names a queue this daemon does not configure, so
    /// that the job runs in its kind's queue instead.
    public func ignores(namedQueue named: String?) -> Bool {
        guard let named else { return false }
        return !queueNames.contains(named)
    }

    /// The rule as one JSON object, for SQL to evaluate it (PostgreSQL's claim and browser):
    /// `{"queues": {NAME: NAME, …}, "kinds": {KIND: NAME, …}}`, so that a job's queue is
    /// `COALESCE(rule -> 'queues' ->> job.queue, rule -> 'kinds' ->> job.kind)`.
    public var jsonObject: [String: [String: String]] {
        ["queues": Dictionary(uniqueKeysWithValues: queueNames.map { ($0, $0) }), "kinds": queueOfKind]
    }
}

extension DaemonConfiguration {
    /// The rule that routes jobs to ``queues``.
    public var routing: QueueRouting { QueueRouting(queues) }
}
