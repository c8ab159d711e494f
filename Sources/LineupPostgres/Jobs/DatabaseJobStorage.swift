import Dispatch
import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging
import LineupJobs
import Metrics

/// One daemon's claims on the jobs of a ``JobDatabase``: claimed with `FOR UPDATE SKIP LOCKED`,
/// held under the daemon's lease, and acknowledged in the transaction of the flush that writes
/// their rows (exactly once).
///
/// **Leases.** The daemon has a row in `lineup_daemons` whose `lease_expires_at` its heartbeats
/// push forward. Every daemon, on each tick, deletes the rows of daemons whose lease ran out and
/// gives their running jobs back in the same statement (counting an interruption, failing a job
/// interrupted more than `poisonThreshold` times). One lease per daemon rather than per job: a
/// heartbeat costs one row whatever the number of jobs.
///
/// **Fencing.** A claim is the pair (row, `claims` count) and the claiming daemon: every
/// statement that settles a job checks all three, so a daemon that lost its lease settles
/// nothing. The acknowledgement goes in the flush's transaction and must change exactly the
/// jobs it names; if another daemon took one of them back, the flush is rolled back with its
/// rows and the daemon stops (``DaemonError/Code/leaseLost``): the daemon that runs the job
/// again writes its rows, once.
///
/// Rows that a job saved in chunks before it finished (a row-limit flush) are not fenced: a job
/// run again after its daemon died writes them again, as with the spool (imports upsert).
final class DatabaseJobStorage: SharedJobQueue {
    let database: JobDatabase
    /// Where the daemon listens for new jobs: the database's own URL, or a direct one past a
    /// pooler in transaction mode (``LineupJobs/DaemonConfiguration/listenDatabaseURL``).
    let listenURL: URL
    /// This daemon's row in `lineup_daemons`.
    let daemonID: Int64
    let lease: Duration
    let poisonThreshold: Int
    /// How long a job waits for a job named in its `after` that no job has (see
    /// ``failUnknownDependencies()``).
    let dependencyWaitTimeout: Duration
    let logger: Logger
    /// Told when the daemon must stop without writing what its jobs did: its lease is lost, or a
    /// flush met another daemon's rows.
    private let mustStop: @Sendable (DaemonError) -> Void
    /// Heartbeats, rescues and polls, on a queue of their own: never the coordinator's.
    let ticks = DispatchQueue(label: "lineup.jobs.lease")
    /// Whether it is started (``startListening(pollInterval:hint:)`` to ``stop()``).
    let isStarted = Locked(false)
    private let lastHeartbeat = Locked(ContinuousClock.now)
    /// The connection that listens for new jobs and cancellation requests; made again by a tick
    /// once the server dropped it (a restart, a failover), since its notifications stop with it.
    private let listener = Locked<PostgresSession?>(nil)
    /// Which counted notifications wake this daemon: its rank among the daemons whose lease
    /// runs, read by each heartbeat (nil until the first: every notification wakes it).
    private let wakeShare = Locked<WakeShare?>(nil)
    /// What the last flush acknowledged, if it threw: its COMMIT may have committed all the same
    /// (the connection was lost during or right after it), and the next commit asks the database
    /// before it writes anything again (``acknowledgementCommittedWithoutAnswer()``).
    private let unansweredAcknowledgement = Locked<[AcknowledgedClaim]?>(nil)
    /// The stamp of the last claim, if it threw: it may have claimed jobs all the same.
    private let unansweredClaim = Locked<Int64?>(nil)
    /// The stamp of the last claim (``nextClaimStamp()``).
    private let lastClaimStamp = Locked<Int64>(0)
    /// Jobs claimed in the last batch that the runner has not asked for yet.
    private let claimedAhead = Locked<[ClaimedRow]>([])
    /// The jobs' transitions out of `running` that could not reach the database (see
    /// ``settleWhenReachable(_:_:_:notifying:as:)``), oldest first.
    private let pendingSettles = Locked<[PendingSettle]>([])
    /// Claim statements run, and those that found no job: how many claims a notification or a
    /// poll costs the database in vain (a notification wakes every daemon that listens).
    private let claimRounds = Counter(label: "lineup_database_claims_total")
    private let emptyClaimRounds = Counter(label: "lineup_database_claims_empty_total")
    /// How long a claim statement takes, from the call to its rows: what a large backlog, or a
    /// prune, would slow.
    private let claimDuration = Metrics.Timer(label: "lineup_database_claim_duration_seconds", preferredDisplayUnit: .seconds)
    /// The claim statements' time, smoothed over the last few (``claimRoundTrip``); nil before
    /// the first.
    private let smoothedClaimDuration = Locked<Duration?>(nil)
    /// How many jobs one claim statement takes at most, whatever room the runner has.
    let maximumClaimBatch: Int
    /// The jobs this daemon settled, and those it looked up: a dependency on one of them needs
    /// no query.
    private let settled = Locked(SettledJobOutcomes())
    /// Which queue a job runs in (``QueueRouting``, from ``DaemonConfiguration/queues``; a restart
    /// changes it), as the claim statement reads it (``JobTableStatements/routedQueue(of:rule:)``):
    /// which queue's pause and limits hold a job.
    let routingJSON: String
    /// Whether a request to cancel one of this daemon's jobs may have come: set by a
    /// notification on ``JobDatabase/cancellationChannel`` and by every tick (a notification
    /// is lost with its connection), so that the runner's frequent asks cost a query only then.
    private let cancellationsMayWait = Locked(true)

    /// Registers this daemon in `lineup_daemons` with a lease of `lease`; it will listen for new
    /// jobs at `listenURL` (nil: the database's own URL).
    init(
        database: JobDatabase, listenURL: URL? = nil, lease: Duration, poisonThreshold: Int, dependencyWaitTimeout: Duration,
        maximumClaimBatch: Int = DatabaseJobStorage.maximumClaimBatch,
        logger: Logger, routing: QueueRouting = QueueRouting(),
        mustStop: @escaping @Sendable (DaemonError) -> Void
    ) throws {
        precondition(maximumClaimBatch > 0, "a claim takes one job at least")
        self.routingJSON = JobTableStatements.ruleArgument(routing)
        self.database = database
        self.listenURL = listenURL ?? database.url
        self.maximumClaimBatch = maximumClaimBatch
        self.lease = lease
        self.poisonThreshold = poisonThreshold
        self.dependencyWaitTimeout = dependencyWaitTimeout
        self.logger = logger
        self.mustStop = mustStop
        let host = ProcessInfo.processInfo.hostName
        let pid = Int64(ProcessInfo.processInfo.processIdentifier)
        daemonID = try database.sessions.withSession { session in
            guard let row = try session.rows(
                "INSERT INTO lineup_daemons (host, pid, lease_expires_at) VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING id",
                [.text(host), .integer(pid), .real(DaemonConfiguration.seconds(lease))]
            ).first, case let .integer(id) = row[0]
            else { throw DaemonError(.storeUnavailable, path: database.location, "cannot register the daemon in lineup_daemons") }
            return id
        }
    }

    var location: String { database.location }

    /// The most jobs one claim statement takes: the runner asks for the room of its claim window
    /// (``LineupJobs/DaemonConfiguration/effectiveClaimWindow``), which is what a daemon holds at
    /// most, claimed ahead or running; this bounds one statement of a very wide window.
    static let maximumClaimBatch = 64

    /// A statement's batch when the runner has room for `limit` jobs.
    func batchSize(upTo limit: Int) -> Int {
        min(maximumClaimBatch, max(1, limit))
    }

    // MARK: - Waking and leasing

    /// Starts listening for new jobs and cancellation requests: `hint` is called when jobs may
    /// be due. A connection that cannot listen leaves the daemon on its ticks' polls.
    func startListening(pollInterval: Duration, hint: @escaping @Sendable () -> Void) {
        isStarted.withLock { $0 = true }
        do {
            try listen(hint: hint)
            if let session = listener.withLock({ $0 }) {
                checkNotificationsArrive(at: session, pollInterval: tickInterval(polling: pollInterval))
            }
        } catch {
            logger.warning("cannot listen for new jobs; polling only", metadata: ["database": "\(location)", "error": "\(error)"])
        }
    }

    /// How often the ticks come: as often as the daemon polls, and at least three times a
    /// lease, so that a tick that fails once does not lose it.
    func tickInterval(polling pollInterval: Duration) -> Duration {
        min(pollInterval, lease / 3)
    }

    /// Opens the listening connection and listens on both channels.
    private func listen(hint: @escaping @Sendable () -> Void) throws {
        let session = try PostgresSession.connect(to: listenURL, logger: logger)
        do {
            try session.listen(to: JobDatabase.channel) { [wakeShare] payload in
                if WakeShare.wakes(wakeShare.withLock { $0 }, for: payload) { hint() }
            }
            try session.listen(to: JobDatabase.cancellationChannel) { [cancellationsMayWait] _ in
                cancellationsMayWait.withLock { $0 = true }
            }
        } catch {
            session.close()
            throw error
        }
        let replaced = listener.withLock { listener in
            defer { listener = session }
            return listener
        }
        replaced?.close()
    }

    /// Listens again when the listening connection is gone: a session makes its connection
    /// again only for its next statement, and a listener runs none, so without this a server's
    /// restart would leave the daemon on its polls alone for good.
    private func listenAgainIfDropped(hint: @escaping @Sendable () -> Void) {
        guard listener.withLock({ $0?.isConnected }) != true else { return }
        do {
            try listen(hint: hint)
            logger.info("listening for new jobs again: the connection that listened was lost", metadata: ["database": "\(location)"])
        } catch {
            logger.warning("cannot listen for new jobs again; polling meanwhile", metadata: ["database": "\(location)", "error": "\(error)"])
        }
    }

    /// One tick, on the ticks' queue (its statements block): renews the lease, listens again if
    /// the listening connection was lost, lands the settles that could not reach the database,
    /// takes jobs back from daemons whose lease ran out, fails jobs whose `after` list can never
    /// be met, and polls: jobs may have come due (`notBefore`), or come with a notification lost.
    /// ``JobLeaseService`` calls it, once per ``tickInterval(polling:)``.
    func tick(hint: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            ticks.async {
                self.tickNow(hint: hint)
                continuation.resume()
            }
        }
    }

    private func tickNow(hint: @escaping @Sendable () -> Void) {
        renewLease()
        listenAgainIfDropped(hint: hint)
        landPendingSettles()
        do {
            try rescueExpiredClaims()
            try failDependencyCycles()
            try failUnknownDependencies()
        } catch {
            // The next tick tries again; a lease that is not renewed in time stops the daemon.
            logger.warning("the job storage's tick failed", metadata: ["database": "\(location)", "error": "\(error)"])
        }
        cancellationsMayWait.withLock { $0 = true }
        hint()
    }

    /// Gives up the lease, once the ticks have ended: jobs still claimed (tasks that ignored
    /// cancellation) are taken back at once, as from a daemon that died.
    func stop() {
        isStarted.withLock { $0 = false }
        // A listen check under way ends first.
        ticks.sync {}
        let session = listener.withLock { session in
            defer { session = nil }
            return session
        }
        session?.close()
        // Before the lease goes: a job whose transition is still pending would be taken back as
        // interrupted, and run again.
        landPendingSettles()
        do {
            _ = try database.sessions.withSession { session in
                try session.execute("UPDATE lineup_daemons SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [.integer(daemonID)])
            }
            try rescueExpiredClaims()
        } catch {
            logger.error("cannot give up the lease; other daemons take its jobs back when it runs out", metadata: ["error": "\(error)"])
        }
    }

    /// Pushes the lease forward. A lease that cannot be renewed for its whole length, or whose
    /// row is gone (another daemon took its jobs back), is lost: the daemon is told to stop.
    private func renewLease() {
        do {
            // The subqueries read the daemons as they were before this statement: this one's own
            // lease was running, or it is lost and the guard below stops it.
            let renewed = try database.sessions.withSession { session in
                try session.rows(
                    """
                    UPDATE lineup_daemons SET lease_expires_at = now() + make_interval(secs => $2) WHERE id = $1
                    RETURNING (SELECT count(*) FROM lineup_daemons WHERE id < $1 AND lease_expires_at > now()),
                              (SELECT count(*) FROM lineup_daemons WHERE id <> $1 AND lease_expires_at > now()) + 1
                    """, [.integer(daemonID), .real(DaemonConfiguration.seconds(lease))])
            }
            if let row = renewed.first, case let .integer(rank) = row[0], case let .integer(daemons) = row[1] {
                wakeShare.withLock { $0 = WakeShare(rank: Int(rank), daemons: Int(daemons)) }
            }
            guard renewed.count == 1 else {
                mustStop(
                    DaemonError(
                        .leaseLost, path: location,
                        "its lease ran out before a heartbeat renewed it, and other daemons took its jobs back"))
                return
            }
            lastHeartbeat.withLock { $0 = .now }
        } catch {
            let since = ContinuousClock.now - lastHeartbeat.withLock { $0 }
            logger.warning("cannot renew the lease", metadata: ["database": "\(location)", "error": "\(error)"])
            if since >= lease {
                mustStop(
                    DaemonError(
                        .leaseLost, path: location,
                        "no heartbeat reached the database for \(DaemonConfiguration.seconds(since)) s (lease \(DaemonConfiguration.seconds(lease)) s)",
                        underlying: error))
            }
        }
    }

    /// Deletes the daemons whose lease ran out and gives their running jobs back (or fails those
    /// interrupted too often).
    func rescueExpiredClaims() throws {
        try database.sessions.withSession { session in
            let rescued = try session.rows(JobTableStatements.rescue, [.integer(Int64(poisonThreshold))])
            if !rescued.isEmpty {
                try session.execute(JobDatabase.notification)
                for row in rescued {
                    logger.warning(
                        row[2] == .text("failed") ? "job failed as poison: its daemons died under it too often" : "job taken back from a daemon whose lease ran out",
                        metadata: ["job": "\(row[1])", "row": "\(row[0])"])
                }
            }
        }
    }

    /// Fails the queued jobs that wait for themselves through `after`: none of them can ever be
    /// claimed (a job is claimed once every job it names is settled), so no daemon would see the
    /// cycle as the spool's runner sees it at claim time.
    func failDependencyCycles() throws {
        try database.sessions.withSession { session in
            let failed = try session.rows(JobTableStatements.dependencyCycles)
            for row in failed {
                logger.error("job failed: a dependency cycle", metadata: ["job": "\(row[0])"])
            }
            if !failed.isEmpty { try session.execute(JobDatabase.notification) }
        }
    }

    /// Fails the queued jobs whose `after` names an id that no job has had for
    /// ``dependencyWaitTimeout`` since they were enqueued: the wait the spool's runner gives
    /// a dependency that may be enqueued a moment later.
    func failUnknownDependencies() throws {
        try database.sessions.withSession { session in
            let failed = try session.rows(JobTableStatements.unknownDependencies, [.real(DaemonConfiguration.seconds(dependencyWaitTimeout))])
            for row in failed {
                logger.error("job failed: it waits for a job that was never enqueued", metadata: ["job": "\(row[0])"])
            }
            if !failed.isEmpty { try session.execute(JobDatabase.notification) }
        }
    }

    // MARK: - Claiming and settling

    /// One statement claims as many due jobs as the runner has room for (`limit`, at most
    /// ``maximumClaimBatch``), when none is left of the last batch: the coordinator waits for
    /// the statement's round trip, which was most of a job's cost when a statement claimed two.
    /// The rest of a batch is held by this daemon until the runner asks for it, in the same pass
    /// of its claims (or is given back at shutdown, ``releaseUnhandedClaims()``). Until the first
    /// statement has been timed, a millisecond, a loopback round trip's order.
    var claimRoundTrip: Duration? {
        smoothedClaimDuration.withLock { $0 } ?? .milliseconds(1)
    }

    func claimNext(upTo limit: Int) throws -> ClaimedRow? {
        try claimNext { try claimBatchNow(batchSize(upTo: limit), stamp: $0) }
    }

    /// The next of the batch claimed ahead, or the first of a new batch from `claimBatch`, which
    /// takes the claim's stamp (its jobs' `claimed_at`, see ``JobTableStatements/claim(filter:limit:)``)
    /// from `stamp` once it holds its session: a stamp taken before the wait for a session could
    /// be older than a flush that held the sessions meanwhile, and `claimed_at` would then say the
    /// job was claimed before a job it waited for was done. Every call of `stamp` in one claim
    /// gives the same stamp. A claim that threw
    /// may have committed all the same (its connection lost during the statement, as a server's
    /// restart may cut it): its jobs would be running under this daemon, which knows nothing of
    /// them, for as long as its lease lives. The next claim takes them first, found by the stamp
    /// (``jobsOfUnansweredClaim()``).
    func claimNext(batch claimBatch: (_ stamp: () -> StoreValue) throws -> [ClaimedRow]) throws -> ClaimedRow? {
        if let next = claimedAhead.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            return next
        }
        var batch = try jobsOfUnansweredClaim()
        if batch.isEmpty {
            var stamp: Int64?
            func takeStamp() -> StoreValue {
                if stamp == nil { stamp = nextClaimStamp() }
                return .integer(stamp!)
            }
            let began = ContinuousClock.now
            do {
                batch = try claimBatch(takeStamp)
            } catch {
                // Without a stamp, the claim threw before any statement could take a job.
                if let stamp { unansweredClaim.withLock { $0 = stamp } }
                throw error
            }
            let took = ContinuousClock.now - began
            claimDuration.record(duration: took)
            // Weighted 1/4, so that one slow statement (a checkpoint, a lock) does not swing the
            // runner's window, while a server that has become slower moves it within a few.
            smoothedClaimDuration.withLock { $0 = $0.map { ($0 * 3 + took) / 4 } ?? took }
            claimRounds.increment()
            guard !batch.isEmpty else {
                emptyClaimRounds.increment()
                return nil
            }
        }
        let first = batch.removeFirst()
        claimedAhead.withLock { $0 += batch }
        return first
    }

    /// In a transaction of its own, though one statement: a statement on its own commits after
    /// the server has sent its rows, so a crash in between would roll back a claim whose jobs
    /// the daemon already runs. Its COMMIT's answer says that the claim holds.
    private func claimBatchNow(_ claimBatch: Int, stamp: () -> StoreValue) throws -> [ClaimedRow] {
        let rows = try database.sessions.withSession { session in
            try session.transaction {
                try session.rows(
                    JobTableStatements.claim(),
                    [.integer(daemonID), .integer(Int64(claimBatch)), .text(routingJSON), stamp()])
            }
        }
        return decodeClaims(rows)
    }

    /// A stamp no other claim of this daemon has: the wall clock's microseconds, so that
    /// `claimed_at` still tells when the job was claimed, made larger than the last.
    private func nextClaimStamp() -> Int64 {
        let now = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        return lastClaimStamp.withLock { last in
            last = max(now, last + 1)
            return last
        }
    }

    /// The jobs that the last claim, which threw, claimed all the same: running under this
    /// daemon and stamped with that claim's stamp. Empty when no claim's outcome is unknown.
    ///
    /// - Throws: When the database cannot be asked; the question stays for the next claim.
    private func jobsOfUnansweredClaim() throws -> [ClaimedRow] {
        guard let stamp = unansweredClaim.withLock({ $0 }) else { return [] }
        let rows = try database.sessions.withSession { session in
            try session.rows(JobTableStatements.jobsOfClaim, [.integer(daemonID), .integer(stamp)])
        }
        unansweredClaim.withLock { $0 = nil }
        if !rows.isEmpty {
            logger.warning(
                "a claim that failed had claimed jobs all the same (its connection was lost at its end): they run here",
                metadata: ["database": "\(location)", "jobs": "\(rows.count)"])
        }
        return decodeClaims(rows)
    }

    /// The claimed rows, in the queue's order.
    func decodeClaims(_ rows: [[StoreValue]]) -> [ClaimedRow] {
        rows.compactMap { row -> (priority: Int64, notBefore: Double, id: Int64, job: ClaimedRow)? in
            guard case let .integer(id) = row[0], case let .text(name) = row[1], case let .blob(contents) = row[2],
                case let .integer(claims) = row[3], case let .integer(failedAttempts) = row[4],
                case let .integer(interruptions) = row[5], case let .real(notBefore) = row[6],
                case let .integer(priority) = row[7]
            else { return nil }
            let job = ClaimedRow(
                row: id, claims: claims, name: name, location: "\(location)#lineup_jobs/\(id)", contents: contents,
                interruptions: Int(interruptions), failedAttempts: Int(failedAttempts))
            return (priority, notBefore, id, job)
        }
        // RETURNING keeps no order: the queue's order is (priority, not_before, id).
        .sorted { ($0.priority, $0.notBefore, $0.id) < ($1.priority, $1.notBefore, $1.id) }
        .map(\.job)
    }

    func recordFailedAttempt(of job: ClaimedRow) throws -> ClaimedRow {
        try settle(job, "failed_attempts = failed_attempts + 1", [])
        return job.withFailedAttempt()
    }

    func settle(_ job: ClaimedRow, _ transition: JobTransition) throws {
        switch transition {
        case let .failed(report):
            // Noted first: if the update fails, this run took the job as failed all the same.
            if let id = report.id {
                settled.withLock { $0.note(id, .failed(reason: report.reason)) }
            }
            let text = String(decoding: try report.encoded(), as: UTF8.self)
            try settleWhenReachable(
                job, "state = 'failed', finished_at = now(), report = $4, reason = $5", [.text(text), .text(report.reason)],
                as: "failed")
        case .released:
            try settleWhenReachable(job, "state = 'queued', claimed_by = NULL", [], notifying: true, as: "released")
        case let .postponed(notBefore):
            try settleWhenReachable(
                job, "state = 'queued', claimed_by = NULL, not_before = to_timestamp($4)",
                [.real(notBefore.timeIntervalSince1970)], notifying: true, as: "postponed")
        }
    }

    /// Gives back the rest of the last batch of claims.
    func releaseUnhandedClaims() throws {
        let unhanded = claimedAhead.withLock { claims in
            defer { claims.removeAll() }
            return claims
        }
        for job in unhanded { try settle(job, .released) }
    }

    func pendingJobIDs(among ids: Set<String>) throws -> Set<String> {
        try database.pendingJobIDs(among: ids)
    }

    func settledReport(ofJobID id: String) -> DependencyReport? {
        do {
            return try database.settledReport(ofJobID: id)
        } catch {
            logger.error("cannot read the report of a settled job", metadata: ["id": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    func cancellationRequests() throws -> [String] {
        guard cancellationsMayWait.withLock({ mayWait in
            defer { mayWait = false }
            return mayWait
        }) else { return [] }
        do {
            return try database.sessions.withSession { session in
                try session.rows(JobTableStatements.cancellationRequests, [.integer(daemonID)]
                ).compactMap(\.[0].textIfPresent)
            }
        } catch {
            // Asked again at the next notification or tick.
            cancellationsMayWait.withLock { $0 = true }
            throw error
        }
    }

    /// A request on a job that is not running here any more vanishes by itself (the query reads
    /// running jobs only); one on a job claimed ahead stays for when the runner holds it.
    func settleCancellationRequests(actedOn: [String], notHeld: [String]) throws -> [String] {
        guard !actedOn.isEmpty else { return [] }
        let names = try JobDatabase.jsonArgument(actedOn)
        try database.sessions.withSession { session in
            _ = try session.execute(
                """
                UPDATE lineup_jobs SET cancel_requested_at = NULL
                WHERE claimed_by = $1 AND state = 'running' AND cancel_requested_at IS NOT NULL
                    AND (name IN (SELECT jsonb_array_elements_text($2::jsonb))
                         OR job_id IN (SELECT jsonb_array_elements_text($2::jsonb)))
                """, [.integer(daemonID), names])
        }
        return []
    }

    func settledOutcome(ofJobID id: String) -> SettledJobOutcome? {
        if let known = settled.withLock({ $0[id] }) { return known }
        do {
            guard let outcome = try database.settledOutcome(ofJobID: id) else { return nil }
            settled.withLock { $0.note(id, outcome) }
            return outcome
        } catch {
            logger.error("cannot look up a settled job", metadata: ["id": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// A job's transition out of `running` (failed, given back, postponed) that could not reach
    /// the database, kept until it lands.
    private struct PendingSettle: Sendable {
        let job: ClaimedRow
        let assignments: String
        let arguments: [StoreValue]
        let notifying: Bool
        /// What the transition is, for the log: "failed", "released", "postponed".
        let transition: String
    }

    /// Settles a job as ``settle(_:_:_:notifying:)`` does; if the database cannot be reached (a
    /// transient error: its server restarts, fails over, dropped the connection), the transition
    /// is kept and tried again at every tick until it lands, and this returns as if it had. The
    /// runner has let the job go: its row must not stay `running` under this daemon, whose live
    /// lease would keep every other daemon from taking it back. A claim no longer held throws.
    private func settleWhenReachable(
        _ job: ClaimedRow, _ assignments: String, _ arguments: [StoreValue], notifying: Bool = false, as transition: String
    ) throws {
        do {
            try settle(job, assignments, arguments, notifying: notifying)
        } catch let error as StoreError where error.isTransient {
            let pending = PendingSettle(
                job: job, assignments: assignments, arguments: arguments, notifying: notifying, transition: transition)
            pendingSettles.withLock { $0.append(pending) }
            logger.warning(
                "cannot reach the database to settle a job; the transition is kept and tried again at every tick",
                metadata: ["job": "\(job.name)", "row": "\(job.row)", "transition": "\(transition)", "error": "\(error)"])
        }
    }

    /// Tries the pending transitions again, oldest first; those that land, or whose claim this
    /// daemon no longer holds (another daemon took the job back), are done with. The first that
    /// still cannot reach the database ends the pass: the next tick goes on from it.
    private func landPendingSettles() {
        while let next = pendingSettles.withLock({ $0.first }) {
            do {
                try settle(next.job, next.assignments, next.arguments, notifying: next.notifying)
                logger.info(
                    "a pending transition of a job reached the database",
                    metadata: ["job": "\(next.job.name)", "row": "\(next.job.row)", "transition": "\(next.transition)"])
            } catch let error as StoreError where error.isTransient {
                return
            } catch {
                logger.warning(
                    "a pending transition of a job is dropped: the job is no longer this daemon's",
                    metadata: ["job": "\(next.job.name)", "row": "\(next.job.row)", "transition": "\(next.transition)", "error": "\(error)"])
            }
            pendingSettles.withLock { _ = $0.removeFirst() }
        }
    }

    /// Changes a job's row while this daemon holds its claim (`$1` the row, `$2` its claims,
    /// `$3` this daemon; `arguments` are `$4`…). A claim no longer held throws.
    private func settle(_ job: ClaimedRow, _ assignments: String, _ arguments: [StoreValue], notifying: Bool = false) throws {
        try database.sessions.withSession { session in
            try session.transaction {
                let changed = try session.execute(
                    JobTableStatements.settle(assignments),
                    [.integer(job.row), .integer(job.claims), .integer(daemonID)] + arguments)
                guard changed == 1 else {
                    throw DaemonError(
                        .leaseLost, path: job.location,
                        "\(job.enqueuedFileName): this daemon no longer holds the job (its lease ran out and another daemon took it back)")
                }
                if notifying { try session.execute(JobDatabase.notification) }
            }
        }
    }

    // MARK: - Acknowledging

    /// nil: the table judges `uniqueFor` when a job is inserted, against every daemon's jobs
    /// (``JobDatabase/insertion(of:)``), so a claimed job has passed it already.
    func lastDone(withUniqueKey key: String) -> Date? {
        nil
    }

    func stage(_ report: JobResultReport, of job: ClaimedRow, logger: Logger) -> FinishedJob<ClaimedRow> {
        FinishedJob(claimed: job, report: report, staged: nil)
    }

    /// Flushes with the jobs' acknowledgement in the same transaction: their rows and their
    /// `done` commit together, or neither does. The jobs that tasks enqueued with their data go
    /// into the jobs table in that transaction too (see ``jobsTableRoute(_:)``), and so do those
    /// that flushes of other programs left in the store's outbox.
    ///
    /// A flush that threw may have committed all the same: the connection was lost during or
    /// right after its COMMIT (a server's restart or failover). The next commit asks the database
    /// first, before the writer writes what it still holds again (see
    /// ``acknowledgementCommittedWithoutAnswer()``).
    func commit(_ jobs: [FinishedJob<ClaimedRow>], flushing container: PersistentContainer, logger: Logger) -> CommitOutcome {
        let started = ContinuousClock.now
        switch Result(catching: { try acknowledgementCommittedWithoutAnswer() }) {
        case let .failure(error):
            // The database cannot tell yet (it is still down): nothing is written meanwhile.
            return CommitOutcome(flush: .failure(error), filed: [])
        case let .success(committed?):
            return adoptCommittedWithoutAnswer(committed, of: jobs, container: container, since: started, logger: logger)
        case .success(nil):
            break
        }
        var statements: [FlushStatement]
        let acknowledged = jobs.map(AcknowledgedClaim.init)
        do {
            statements = jobs.isEmpty ? [] : [try acknowledgement(of: jobs)]
            // Wakes the daemons for the jobs that wait for these (`after`), if any does: a
            // notification on every flush of every daemon had each of them claim in vain.
            let ids = jobs.compactMap(\.report.id)
            if !ids.isEmpty {
                statements.append(FlushStatement(JobTableStatements.notifyWaiters, arguments: [try JobDatabase.jsonArgument(ids)]))
            }
            statements += try outboxLeftovers(in: container, logger: logger)
        } catch {
            return CommitOutcome(flush: .failure(error), filed: [])
        }
        let flush = Result { try container.flush(including: statements, routingOutbox: Self.jobsTableRoute) }
        if case .failure = flush, !acknowledged.isEmpty {
            unansweredAcknowledgement.withLock { $0 = acknowledged }
        }
        if case let .success(report) = flush, report.messagesWritten > 0 {
            logger.info("jobs enqueued with the data inserted with the flush", metadata: ["jobs": "\(report.messagesWritten)"])
        }
        if case let .failure(error as StoreError) = flush {
            switch error.code {
            case .unexpectedRowCount:
                unansweredAcknowledgement.withLock { $0 = nil }
                mustStop(
                    DaemonError(
                        .leaseLost, path: location,
                        "a flush found jobs of its own taken back by other daemons; it was rolled back with their rows"))
            case .mergeConflict:
                // The conflict rolled the transaction back: nothing of it committed. What the
                // flush carried is discarded and its jobs run again (see `GroupCommitter`).
                unansweredAcknowledgement.withLock { $0 = nil }
            default:
                break
            }
        }
        guard case .success = flush else { return CommitOutcome(flush: flush, filed: []) }
        settled.withLock { outcomes in
            for job in jobs {
                if let id = job.report.id { outcomes.note(id, .done) }
            }
        }
        return CommitOutcome(flush: flush, filed: Set(jobs.map(\.claimed.claim)))
    }

    /// One job of an acknowledgement: its row and the claim the acknowledgement settles.
    struct AcknowledgedClaim: Encodable, Sendable {
        let id: Int64
        let claims: Int64
        /// The runner's name of the claim (``ClaimedRow/claim``), not sent.
        let claim: String

        init(_ job: FinishedJob<ClaimedRow>) {
            id = job.claimed.row
            claims = job.claimed.claims
            claim = job.claimed.claim
        }

        private enum CodingKeys: String, CodingKey { case id, claims }
    }

    /// Whether the last flush, which threw, committed all the same: its acknowledgement settled
    /// its jobs as done under this daemon's claims, in the flush's one transaction, so one job so
    /// settled shows that everything the flush wrote committed; none, that nothing did (a
    /// server that crashed rolled it back; one that lives had it rolled back when the
    /// connection went). nil when no flush's outcome is unknown, or it did not commit.
    ///
    /// A flush that threw without an acknowledgement (rows alone, from a row-limit flush) has no
    /// such witness: its rows are written again, as a job run again writes its chunks again.
    ///
    /// - Throws: When the database cannot be asked; the question stays for the next commit.
    private func acknowledgementCommittedWithoutAnswer() throws -> [AcknowledgedClaim]? {
        guard let unanswered = unansweredAcknowledgement.withLock({ $0 }) else { return nil }
        let settled = try database.sessions.withSession { session in
            try session.rows(JobTableStatements.acknowledgedJobsDone, [try JobDatabase.jsonArgument(unanswered), .integer(daemonID)])
        }
        unansweredAcknowledgement.withLock { $0 = nil }
        guard case let .integer(count)? = settled.first?.first, count > 0 else {
            logger.info(
                "a flush that failed did not commit; its jobs are acknowledged again",
                metadata: ["database": "\(location)", "jobs": "\(unanswered.count)"])
            return nil
        }
        return unanswered
    }

    /// Settles a flush whose transaction committed although it threw: the writer takes what it
    /// holds as written, and the jobs it acknowledged are filed. The other jobs of `jobs` (those
    /// that finished since) go with the next flush.
    private func adoptCommittedWithoutAnswer(
        _ committed: [AcknowledgedClaim], of jobs: [FinishedJob<ClaimedRow>], container: PersistentContainer,
        since started: ContinuousClock.Instant, logger: Logger
    ) -> CommitOutcome {
        let rows = container.adoptFlushCommittedWithoutAnswer()
        logger.warning(
            "a flush that failed had committed all the same (its connection was lost at its COMMIT): its rows and jobs are taken as written, not written again",
            metadata: ["database": "\(location)", "jobs": "\(committed.count)", "rows": "\(rows)"])
        let filed = Set(committed.map(\.claim))
        settled.withLock { outcomes in
            for job in jobs where filed.contains(job.claimed.claim) {
                if let id = job.report.id { outcomes.note(id, .done) }
            }
        }
        let report = FlushReport(
            rowsFromMain: 0, rowsWritten: rows, duration: ContinuousClock.now - started, mainContextDuration: .zero,
            messagesWritten: 0)
        return CommitOutcome(flush: .success(report), filed: filed)
    }

    /// What the flush's transaction runs for the jobs that tasks enqueued with their data: their
    /// insertion into the jobs table, as ``JobDatabase/enqueue(_:)`` inserts, and the notification.
    /// Each keeps the name it was enqueued under (its outbox key) as its intake key, so that it
    /// goes in once however it comes.
    static func jobsTableRoute(_ messages: [OutboxMessage]) throws -> [FlushStatement] {
        let jobs = messages.filter { $0.channel == OutboxMessage.jobChannel }
        guard !jobs.isEmpty else { return [] }
        return try JobDatabase.insertion(of: jobs.map(submission)) + [FlushStatement(JobDatabase.notification)]
    }

    private static func submission(_ message: OutboxMessage) -> JobDatabase.Submission {
        JobDatabase.Submission(name: message.key, contents: message.body, intakeKey: "outbox:\(message.key)")
    }

    /// The statements that move what the store's outbox holds (jobs that a flush of another
    /// program, `lineup run` or one of its own, wrote there) into the jobs table, in the flush's
    /// transaction: inserted and deleted together. Two daemons that move one entry at once insert
    /// it once (its intake key), and delete it once.
    private func outboxLeftovers(in container: PersistentContainer, logger: Logger) throws -> [FlushStatement] {
        let entries = try container.outboxEntries(on: OutboxMessage.jobChannel, limit: 500)
        guard !entries.isEmpty else { return [] }
        for entry in entries {
            logger.info("moving a job from the store's outbox into the jobs table", metadata: ["job": "\(entry.message.key)"])
        }
        return try JobDatabase.insertion(of: entries.map { Self.submission($0.message) })
            + [OutboxSQL.removal(of: entries.map(\.id), .postgres), FlushStatement(JobDatabase.notification)]
    }

    /// One statement for the whole group, which must change every job of it: a job that another
    /// daemon took back rolls the flush back.
    ///
    /// The argument is written by `JSONTextWriter`, not by `JSONEncoder` as
    /// ``JobDatabase/jsonArgument(_:)`` writes the others: it carries every finished job's
    /// report, and in `lineup-bench postgres-jobs` the encoder's generic machinery took about 3 %
    /// of a daemon's processor time (`perf`).
    private func acknowledgement(of jobs: [FinishedJob<ClaimedRow>]) throws -> FlushStatement {
        let rows = try jobs.map { job throws(SpoolError) -> JSONValue in
            .object([
                "id": .integer(Int(job.claimed.row)), "claims": .integer(Int(job.claimed.claims)),
                "report": .string(String(decoding: try job.report.encoded(), as: UTF8.self)),
            ])
        }
        let argument = String(decoding: try JSONTextWriter.text(of: .array(rows), style: .compact), as: UTF8.self)
        return FlushStatement(
            JobTableStatements.acknowledgement, arguments: [.text(argument), .integer(daemonID)], expectedRowCount: jobs.count)
    }
}
