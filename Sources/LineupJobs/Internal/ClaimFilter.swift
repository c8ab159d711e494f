package import LineupSpool

/// What a claim must leave queued while something is paused or limited (see
/// ``JobStorage/claimNext(filter:)``).
package struct ClaimFilter {
    /// Whether this daemon may claim a job of the kind now, by what it knows itself: the paused
    /// kinds and queues as it last read them, and its own counts of its limits. Called on the
    /// runner's coordinator, during the claim.
    package let admits: (_ kind: String?) -> Bool
    /// The limits, by scope: a storage that daemons share counts them itself, across daemons.
    package let limits: [JobScope: JobLimit]
    /// The named queue of each kind that runs in one.
    package let queueOfKind: [String: String]

    package init(admits: @escaping (_ kind: String?) -> Bool, limits: [JobScope: JobLimit], queueOfKind: [String: String]) {
        self.admits = admits
        self.limits = limits
        self.queueOfKind = queueOfKind
    }

    /// The kinds a limit's scope covers: its kind, or its queue's kinds.
    package func kinds(of scope: JobScope) -> [String] {
        switch scope.level {
        case .kind: [scope.name]
        case .queue: queueOfKind.filter { $0.value == scope.name }.keys.sorted()
        }
    }
}
