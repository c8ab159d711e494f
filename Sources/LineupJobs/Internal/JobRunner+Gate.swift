import Foundation
import LineupSpool
import Logging
import LineupLocking

extension JobRunner {
    /// The filter for this claim round; nil when nothing is paused and no limit is configured
    /// (then the plain claim runs). Reads the paused list again once a rescan interval has
    /// passed since the last read: how long a `lineup pause` or `resume` of another process
    /// takes to reach this daemon's claims (a database's claim obeys it at once).
    func claimFilter(_ configuration: DaemonConfiguration) -> ClaimFilter? {
        assertOnCoordinator()
        refreshGateIfDue(configuration)
        gate.hasLimits = !configuration.limits.isEmpty
        guard !gate.paused.isEmpty || !configuration.limits.isEmpty else { return nil }
        gate.refusedByLimit = []
        return ClaimFilter(
            admits: { [unowned self] kind, namedQueue in self.admits(kind, namedQueue, configuration) }, limits: configuration.limits)
    }

    private func refreshGateIfDue(_ configuration: DaemonConfiguration) {
        let now = ContinuousClock.now
        if let readAt = gate.pausedReadAt, now - readAt < configuration.rescanInterval { return }
        gate.pausedReadAt = now
        do {
            let paused = Set(try jobs.pausedScopes())
            if paused != gate.paused {
                logger.info(
                    "paused kinds and queues changed",
                    metadata: ["paused": "\(paused.sorted().map(\.description).joined(separator: ","))"])
                gate.paused = paused
            }
        } catch {
            // The last list read stays in force: a file or a table that cannot be read must not
            // resume what an operator paused.
            logger.error("cannot read the paused kinds and queues", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
        }
        if !configuration.limits.isEmpty {
            let filter = ClaimFilter(admits: { _, _ in true }, limits: configuration.limits)
            do {
                gate.sharedStates = try jobs.sharedLimitStates(filter)
            } catch {
                logger.warning("cannot read the limits' counts", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
            }
        }
    }

    /// Whether a job of `kind` that names `namedQueue` may be claimed now, by this daemon's own
    /// view: the pauses and limits of its kind and of the queue it runs in (``QueueRouting``).
    private func admits(_ kind: String?, _ namedQueue: String?, _ configuration: DaemonConfiguration) -> Bool {
        assertOnCoordinator()
        let queue = routing.queue(forJobNamed: namedQueue, kind: kind)
        if gate.paused.contains(where: { $0.covers(kind: kind, queue: queue) }) { return false }
        for (scope, limit) in configuration.limits where scope.covers(kind: kind, queue: queue) {
            if let maxRunning = limit.maxRunning, running(in: scope) >= maxRunning {
                gate.refusedByLimit.insert(scope)
                return false
            }
            if let rate = limit.rate, gate.claims(of: scope, within: rate.period, before: clock.now()) >= rate.jobs {
                gate.refusedByLimit.insert(scope)
                scheduleRateWake(scope, rate)
                return false
            }
        }
        return true
    }

    /// This daemon's jobs of `scope` claimed and not finished running.
    private func running(in scope: JobScope) -> Int {
        state.live.values.reduce(0) { count, record in
            let kind = record.file?.kind
            let queue = routing.queue(forJobNamed: record.file?.queue, kind: kind)
            guard scope.covers(kind: kind, queue: queue), !record.hasFinishedRunning else { return count }
            return count + 1
        }
    }

    /// A claim round when the oldest claim of the rate's window leaves it.
    private func scheduleRateWake(_ scope: JobScope, _ rate: JobLimit.Rate) {
        guard let oldest = gate.recentClaims[scope]?.first else { return }
        let wake = oldest.addingTimeInterval(DaemonConfiguration.seconds(rate.period))
        if let scheduled = gate.rateWakeAt, scheduled <= wake, scheduled > clock.now() { return }
        gate.rateWakeAt = wake
        let delay = max(0, wake.timeIntervalSince(clock.now()))
        clock.schedule(.nanoseconds(Int64(delay * 1e9) + 1_000_000), coordinator) {
            self.gate.rateWakeAt = nil
            self.claimWhileRoom(mayFindNewJobs: true)
        }
    }

    /// Counts a claim of a job of `kind` that names `namedQueue` against the rates that cover
    /// its kind or the queue it runs in.
    func noteClaim(kind: String?, namedQueue: String?) {
        assertOnCoordinator()
        guard !state.configuration.limits.isEmpty else { return }
        let queue = routing.queue(forJobNamed: namedQueue, kind: kind)
        let now = clock.now()
        for (scope, limit) in state.configuration.limits where limit.rate != nil && scope.covers(kind: kind, queue: queue) {
            gate.recentClaims[scope, default: []].append(now)
        }
    }

    /// The limits' states for the status: the storage's counts when daemons share it, this
    /// daemon's own otherwise.
    func limitStates(_ configuration: DaemonConfiguration) -> [DaemonStatus.LimitState]? {
        assertOnCoordinator()
        guard !configuration.limits.isEmpty else { return nil }
        if let shared = gate.sharedStates { return shared }
        let now = clock.now()
        return configuration.limits.sorted { $0.key < $1.key }.map { scope, limit in
            var state = DaemonStatus.LimitState(
                scope: scope, running: running(in: scope), maxRunning: limit.maxRunning,
                claimedInPeriod: limit.rate.map { gate.claims(of: scope, within: $0.period, before: now) },
                rate: limit.rate?.jobs, period: limit.rate.map { DaemonConfiguration.seconds($0.period) }, holdingBack: false)
            state.holdingBack = state.isUsedUp && gate.refusedByLimit.contains(scope)
            return state
        }
    }

    /// Pauses or resumes `scope` in the storage, and claims at once by the new list.
    func setPaused(_ scope: JobScope, _ paused: Bool) async throws -> Bool {
        try await onCoordinator {
            let changed = try self.jobs.setPaused(scope, paused)
            self.logger.notice(paused ? "paused" : "resumed", metadata: ["scope": "\(scope)", "changed": "\(changed)"])
            self.gate.pausedReadAt = nil
            self.claimWhileRoom(mayFindNewJobs: true)
            return changed
        }
    }
}
