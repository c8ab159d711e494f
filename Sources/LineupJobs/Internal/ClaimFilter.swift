package import LineupSpool

/// What a claim must leave queued while something is paused or limited (see
/// ``JobStorage/claimNext(filter:)``).
package struct ClaimFilter {
    /// Whether this daemon may claim a job of the kind, naming the queue (its file's `queue`),
    /// now, by what it knows itself: the paused kinds and queues as it last read them, and its
    /// own counts of its limits. Called on the runner's coordinator, during the claim.
    package let admits: (_ kind: String?, _ namedQueue: String?) -> Bool
    /// The limits, by scope: a storage that daemons share counts them itself, across daemons
    /// (routing each job by the rule it was made with, ``QueueRouting``).
    package let limits: [JobScope: JobLimit]

    package init(admits: @escaping (_ kind: String?, _ namedQueue: String?) -> Bool, limits: [JobScope: JobLimit]) {
        self.admits = admits
        self.limits = limits
    }
}
