/// The runner's bookkeeping of `after` lists: which jobs in hand carry which ids, and which
/// parked jobs wait for which ids.
///
/// A job whose `after` list names a job that is not settled yet is parked, not queued: it
/// reaches the `OperationQueue` only once every job it names is done (acknowledged, its rows on
/// disk), and fails as soon as one of them failed. One mechanism covers jobs in hand and ids not
/// seen yet alike; the queue never holds a job that cannot run.
///
/// Plain state with no I/O and no threads: the runner keeps one on its coordinator, asks it what
/// a job's `after` list comes to (``verdict(for:after:settled:)``), and tells it when jobs come
/// in hand and settle. How a job that is not in hand was settled (in this run, an earlier one, or
/// by another daemon) is the job storage's to say, passed in as `settled`.
struct DependencyBook {
    /// What a job's `after` list comes to now.
    enum Verdict: Equatable {
        /// Every job it names is done: it may run.
        case ready
        /// It waits for the jobs in hand with the ids `inHand`, and for the ids `unknown`, which
        /// no job in hand has and no settled job had.
        case waiting(inHand: Set<String>, unknown: Set<String>)
        /// The job with this id failed.
        case dependencyFailed(id: String, reason: String)
        /// It waits, directly or not, for itself, through the job with this id.
        case cycle(through: String)
    }

    /// The claim of the job in hand that has each id (the latest claimed wins an id used twice).
    private var holderByID: [String: String] = [:]
    /// The `after` lists of the jobs in hand, by claim: the edges that a cycle runs along.
    private var afterByClaim: [String: [String]] = [:]
    /// The parked jobs' claims, by the ids they wait for.
    private var waitersByID: [String: Set<String>] = [:]
    /// The ids each parked job waits for, by its claim.
    private var awaitedByClaim: [String: Set<String>] = [:]
    /// The parked jobs that wait for a job in hand (and not only for ids not seen yet).
    private var waitingForJobsInHand: Set<String> = []

    /// How many jobs are parked.
    var parkedCount: Int { awaitedByClaim.count }

    /// How many parked jobs wait for a job in hand. They count against the claim window, as
    /// queued jobs do: they will run as soon as it settles. Jobs that wait only for ids not seen
    /// yet do not count: they may wait long, and must not stop the claims that bring those ids.
    var parkedOnJobsInHandCount: Int { waitingForJobsInHand.count }

    /// Whether the job with this id has parked jobs waiting for it (they want it flushed soon).
    func hasWaiters(forID id: String) -> Bool {
        waitersByID[id]?.isEmpty == false
    }

    /// The claim of the job in hand with this id; nil when no job in hand has it.
    func holder(ofID id: String) -> String? {
        holderByID[id]
    }

    /// The ids the parked job waits for; empty when it is not parked.
    func awaitedIDs(of claim: String) -> Set<String> {
        awaitedByClaim[claim] ?? []
    }

    /// A job comes in hand: dependents may name it by `id` from now on.
    mutating func hold(claim: String, id: String?, after: [String]) {
        if let id { holderByID[id] = claim }
        if !after.isEmpty { afterByClaim[claim] = after }
    }

    /// What `claim`'s `after` list comes to, judged in its order: the first dependency that failed
    /// or closes a cycle decides; otherwise it waits while any job it names is not done.
    ///
    /// - Parameters:
    ///   - runsAfterFailures: the job's `afterSettled`: a dependency that failed counts as
    ///     settled, as a done one does, rather than failing the job.
    ///   - settled: how the job with an id not in hand was settled; nil when no settled job had it.
    func verdict(
        for claim: String, after: [String], runsAfterFailures: Bool = false, settled: (String) -> SettledJobOutcome?
    ) -> Verdict {
        var inHand: Set<String> = []
        var unknown: Set<String> = []
        for id in after {
            if let holder = holderByID[id] {
                if holder == claim || reaches(from: holder, to: claim) {
                    return .cycle(through: id)
                }
                inHand.insert(id)
                continue
            }
            switch settled(id) {
            case .done:
                continue
            case let .failed(reason):
                if runsAfterFailures { continue }
                return .dependencyFailed(id: id, reason: reason)
            case nil:
                unknown.insert(id)
            }
        }
        return inHand.isEmpty && unknown.isEmpty ? .ready : .waiting(inHand: inHand, unknown: unknown)
    }

    /// Parks the job until the jobs with `ids` settle; replaces what it waited for before.
    /// `inHand` says whether one of them is a job in hand (see ``parkedOnJobsInHandCount``).
    mutating func park(_ claim: String, on ids: Set<String>, inHand: Bool = false) {
        unpark(claim)
        guard !ids.isEmpty else { return }
        awaitedByClaim[claim] = ids
        if inHand {
            waitingForJobsInHand.insert(claim)
        }
        for id in ids {
            waitersByID[id, default: []].insert(claim)
        }
    }

    /// The job is settled (or given back): it is no longer in hand nor parked. Returns the parked
    /// jobs that waited for its id, to be judged again, unless another job in hand has that id.
    mutating func settle(claim: String, id: String?) -> Set<String> {
        unpark(claim)
        afterByClaim[claim] = nil
        guard let id else { return [] }
        if holderByID[id] == claim {
            holderByID[id] = nil
        }
        guard holderByID[id] == nil, let waiters = waitersByID[id] else { return [] }
        return waiters
    }

    /// The job no longer waits (it is ready, or judged again): it is not parked.
    mutating func unpark(_ claim: String) {
        waitingForJobsInHand.remove(claim)
        guard let awaited = awaitedByClaim.removeValue(forKey: claim) else { return }
        for id in awaited {
            waitersByID[id]?.remove(claim)
            if waitersByID[id]?.isEmpty == true { waitersByID[id] = nil }
        }
    }

    /// Whether `target` is reachable from `start` along the `after` lists of jobs in hand.
    private func reaches(from start: String, to target: String) -> Bool {
        var stack = [start]
        var seen: Set<String> = []
        while let current = stack.popLast() {
            guard seen.insert(current).inserted else { continue }
            for id in afterByClaim[current] ?? [] {
                guard let next = holderByID[id] else { continue }
                if next == target { return true }
                stack.append(next)
            }
        }
        return false
    }
}
