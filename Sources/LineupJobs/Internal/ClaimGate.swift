import Foundation
import LineupSpool

/// The runner's view of what holds claims back: the kinds and queues paused, and this daemon's
/// counts of its limits. Touched only on the runner's coordinator.
///
/// While nothing is paused and no limit is configured, the runner claims as it always did
/// (``JobStorage/claimNext()``): the gate costs a comparison per claim round, and the read of
/// the paused list once per rescan interval.
struct ClaimGate {
    /// Whether the configuration has limits, as of the last claim round.
    var hasLimits = false
    /// The kinds and queues paused, as last read from the storage.
    var paused: Set<JobScope> = []
    /// When ``paused`` was read; nil: read it at the next claim round.
    var pausedReadAt: ContinuousClock.Instant?
    /// For each limit with a rate, the times of this daemon's claims within its period, oldest
    /// first.
    var recentClaims: [JobScope: [Date]] = [:]
    /// The limits that refused a due job in the last claim round.
    var refusedByLimit: Set<JobScope> = []
    /// When a claim round is scheduled for a rate's window to move on; nil: none is.
    var rateWakeAt: Date?
    /// The limits' states as a storage shared by several daemons counts them, as last read.
    var sharedStates: [DaemonStatus.LimitState]?

    /// Forgets the claims older than `period` before `now`; returns how many are left.
    mutating func claims(of scope: JobScope, within period: Duration, before now: Date) -> Int {
        let cutoff = now.addingTimeInterval(-DaemonConfiguration.seconds(period))
        guard var times = recentClaims[scope] else { return 0 }
        if let firstKept = times.firstIndex(where: { $0 > cutoff }) {
            times.removeFirst(firstKept)
        } else {
            times.removeAll()
        }
        recentClaims[scope] = times
        return times.count
    }
}
