/// Which notifications of new jobs wake this daemon, so that one of n jobs wakes about n of the
/// daemons that listen, not every one of them (issue 35: the herd).
///
/// An enqueue notifies `lineup_jobs` with the number of jobs it inserted and a random start,
/// `"<jobs> <start>"` (``payload(jobs:start:)``). Each daemon knows its rank among the daemons
/// whose lease runs (by `lineup_daemons.id`), and how many they are, from its last heartbeat. Of
/// D daemons, those whose rank is among the n that follow the start, round the circle, claim:
/// exactly n of them when every daemon counted the same, each a fair share over many
/// notifications (the start is random). A notification without a count (a flush's, a
/// rescue's, an older Lineup's) wakes every daemon, as does any notification to a daemon that has
/// not counted yet.
///
/// A daemon woken with no room, or whose count is stale (a daemon came or went since its last
/// heartbeat), or a daemon that is counted but cannot hear (its listener is down), may leave a
/// job unclaimed by this notification: the daemons' polls (every `rescanInterval`) claim it, so a
/// job waits at most one poll longer, never more.
package struct WakeShare: Sendable, Equatable {
    /// This daemon's place among the daemons whose lease runs, from 0.
    package var rank: Int
    /// How many daemons' leases run, this one's included.
    package var daemons: Int

    package init(rank: Int, daemons: Int) {
        self.rank = rank
        self.daemons = daemons
    }

    /// The payload of a notification of `jobs` new jobs, whose wake starts at `start`.
    package static func payload(jobs: Int, start: Int = Int.random(in: 0..<1_000_000)) -> String {
        "\(jobs) \(start)"
    }

    /// Whether the notification with `payload` wakes the daemon whose share this is (nil: not
    /// counted yet, woken by everything).
    package static func wakes(_ share: WakeShare?, for payload: String) -> Bool {
        let fields = payload.split(separator: " ")
        guard let share, share.daemons > 0, (0..<share.daemons).contains(share.rank), fields.count == 2,
            let jobs = Int(fields[0]), let start = Int(fields[1]), jobs >= 0, start >= 0
        else { return true }
        if jobs >= share.daemons { return true }
        let distance = ((share.rank - start % share.daemons) + share.daemons) % share.daemons
        return distance < jobs
    }
}
