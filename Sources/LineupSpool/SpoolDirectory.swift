public import Foundation
import LineupLocking

/// A spool directory: the maildir-style queue through which jobs reach the daemon.
///
/// ## Layout
///
/// ```
/// <root>/
///   tmp/     producers write here, then rename into new/; nothing here is ever read
///   new/     complete job files, claimed in name order
///   active/  claimed job files (one daemon consumes a spool)
///   done/    job file + <stem>.result.json (the stem: the file name without .job.json)
///   failed/  job file + <stem>.error.json
/// ```
///
/// A job file is named `<name>[.p<N>][.t<time>][.i<N>][.a<N>][.c<claim>].job.json`. ``enqueue(_:)`` makes
/// `<name>` from the UTC time with microseconds, the pid, a random per-process token and a
/// counter (`20261122T193512.123456Z-4242-0a1b2c-17`), so names sort by enqueue time and `new/`
/// is claimed first in, first out. A hand-written job file may use any `<name>`; it sorts among
/// the others by that name, and any number of jobs may share it. `.p<N>` is the job's priority
/// when not the default (``JobFile/priority``): `new/` is claimed by priority first (0 before 9),
/// then by name; `.t<time>` its `notBefore`. The other tags are the spool's:
/// `.i<N>` counts the times a daemon stopped while the job was running, `.a<N>` the attempts
/// that failed and will be retried, and `.c<claim>` is the claim, drawn afresh at each claim, so
/// that every file in `active/`, `done/` and `failed/` has a name of its own and its report
/// (`<stem>.result.json`, `<stem>.error.json`, where the stem is the file name without
/// `.job.json`) belongs to that claim alone. They live in the name so that they survive crashes,
/// and come after `<name>` so that they do not change the order. Entries that do not end in
/// `.job.json` or that start with a dot (editor swap files, a producer's own temporary files)
/// are ignored.
///
/// ## Protocol
///
/// Every move of a job file is one `rename(2)` within the spool, which the kernel performs
/// atomically: the file is in its old directory or its new one, never both and never
/// neither. No move ever replaces a file (`RENAME_NOREPLACE`): a replaced file would be a job
/// lost without a trace.
///
/// - **Enqueue**: write `tmp/<file>` (created exclusively), fsync it, rename it to
///   `new/<file>`, fsync `new/`.
/// - **Claim**: rename `new/<file>` to `active/<file with a fresh claim>`. When the rename
///   finds no file, another claimer won it; the next name is tried. No fsync: a claim lost in a
///   power cut just leaves the job queued.
/// - **Retry**: a failed attempt that will be retried renames `active/<file>` to count it
///   (`.a<N>`), so that a restart does not reset the count.
/// - **Complete** / **fail**: write the report to `tmp/`, fsync it, rename it to
///   `done/<stem>.result.json` (or `failed/<stem>.error.json`), fsync that directory, then
///   rename the job file from `active/` beside it and fsync again. A job file in `done/` or
///   `failed/` therefore always has its report beside it. For a group, each step is taken
///   for every job before the next (one directory fsync per step, not per job). The first
///   step may be taken early (``stageResultReport(_:of:)``), while the job waits for
///   something else; the report then waits in `tmp/`, where it means nothing, until
///   ``complete(staged:)`` takes the renames.
/// - **Release** (graceful shutdown): rename `active/<file>` back to `new/`, without its claim.
/// - **Recover** (start-up, before claiming): each file left in `active/` was interrupted.
///   If its own report (same claim) already lies in `done/` or `failed/`, the crash came
///   between the two renames of complete or fail, and the move is finished. Otherwise it goes
///   back to `new/` without its claim and with `.i<N+1>`, or, once N+1 reaches the limit, to
///   `failed/` (report first) as poison. A file going back to `new/` keeps its old claim when
///   another job there already has the name it would take.
///
/// ## Crash safety
///
/// A crash between any two steps leaves every job file in exactly one of `new/`, `active/`,
/// `done/` and `failed/`: never lost, never duplicated. A crash may leave a stray file in
/// `tmp/` (a report there is removed by ``recoverActive(maxInterruptions:)``, anything else
/// by ``removeStaleTemporaryFiles(olderThan:)``) or a report with its job still in `active/`
/// (finished by ``recoverActive(maxInterruptions:)``). A job runs at
/// least once; a job that was running in a crash runs again, so jobs must be idempotent.
///
/// ``Durability`` decides what survives a power cut or a kernel crash. With
/// ``Durability/fsync`` (the default) an enqueue, a completion or a failure is on
/// disk when the call returns. With ``Durability/none`` nothing is fsynced: the
/// protocol is still safe against a crash of the process (the kernel keeps every finished
/// rename), but the last moves may be undone by a power cut. Use it for tests and benchmarks,
/// or when the store's own durability is enough.
///
/// ## Concurrency
///
/// Any number of producers (threads or processes) may enqueue at once, and any number of
/// threads or instances may claim from the same spool: each job is claimed exactly once.
/// ``recoverActive(maxInterruptions:)`` treats every file in `active/` as orphaned, so it
/// must run only while no other consumer is running on the spool. A `SpoolDirectory` is
/// `Sendable`; its only state is the in-memory list of names it is claiming from.
public final class SpoolDirectory: Sendable {
    /// What is fsynced, which decides what survives a power cut.
    public enum Durability: Sendable, Hashable {
        /// Files are fsynced before they are renamed into place, and directories after
        /// renames that enqueue or finish a job.
        case fsync
        /// Nothing is fsynced. Safe against process crashes, not against power cuts.
        case none
    }

    /// Job files larger than this are not read: ``ClaimedJob/decodeJobFile()`` throws.
    public static let maximumJobFileSize = 1 << 20

    /// The spool's root directory.
    public let root: URL
    /// What is fsynced.
    public let durability: Durability

    let rootPath: String
    let temporaryPath: String
    /// The paths of `new/`, `active/`, `done/` and `failed/`: made once, as every claim and
    /// filing joins them with a file name.
    private let statePaths: StatePaths

    private struct StatePaths {
        let queued, running, done, failed: String

        init(root: String) {
            func path(_ state: JobState) -> String { root + "/" + state.directoryName }
            (queued, running, done, failed) = (path(.queued), path(.running), path(.done), path(.failed))
        }

        subscript(state: JobState) -> String {
            switch state {
            case .queued: queued
            case .running: running
            case .done: done
            case .failed: failed
            }
        }
    }

    /// The sorted names read from `new/` by the last listing, and the next one to try.
    /// Claiming walks this list and lists `new/` again only when it is used up, so that a
    /// busy queue costs one `readdir` per batch rather than per job.
    private struct Backlog {
        var names: [String] = []
        var next = 0
        /// When `names` was listed.
        var listedAt: ContinuousClock.Instant?
        /// Whether a job of a more urgent priority than `names[next]` arrived since (see
        /// ``noteArrival(fileName:)``).
        var outranked = false
    }

    /// The least time between two listings of `new/` made because an urgent job arrived: each
    /// costs the whole listing, and a steady stream of urgent jobs beside a large backlog would
    /// otherwise list it for each of them.
    static let outrankedRelistSpacing = Duration.milliseconds(100)

    private let backlog = Locked(Backlog())
    /// Whether a claim was made since `new/` and `active/` were last synced (see `syncClaims`).
    private let claimsNotYetDurable = Locked(false)
    /// How many times the claims were synced; held through each sync, so that a second caller
    /// does not go on while the first one's fsyncs, which cover the claims it took the flag for,
    /// have not returned. (A count rather than `()`: ThreadSanitizer reports the accesses to an
    /// empty value behind a lock as races.)
    private let claimSyncs = Locked(0)
    /// The time that says whether a scheduled job is due.
    package let now: @Sendable () -> Date
    /// The bulk files claimed, whose lines are being handed out (see `SpoolDirectory+Bulk.swift`).
    let bulks = Locked(BulkBook())
    /// The kinds and named queues of the job files in `new/` read by ``claimNext(admitting:)``,
    /// by file name.
    let queuedRoutes = Locked<[String: QueuedRoute]>([:])

    /// Opens the spool at `root`, creating the directory and its five subdirectories when
    /// they are missing.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/io`` when a directory cannot be
    ///   created.
    public convenience init(root: URL, durability: Durability = .fsync) throws(SpoolError) {
        try self.init(root: root, durability: durability, now: { Date() })
    }

    /// Opens the spool as ``init(root:durability:)`` does, with `now` as the time that says
    /// whether a scheduled job is due: a test's clock (LineupTesting) rather than the system's.
    package init(root: URL, durability: Durability = .fsync, now: @escaping @Sendable () -> Date) throws(SpoolError) {
        self.now = now
        self.root = root.standardizedFileURL
        self.durability = durability
        self.rootPath = self.root.path
        self.temporaryPath = rootPath + "/tmp"
        self.statePaths = StatePaths(root: rootPath)
        try FileSystem.makeDirectory(rootPath)
        try FileSystem.makeDirectory(temporaryPath)
        for state in JobState.allCases {
            try FileSystem.makeDirectory(path(of: state))
        }
    }

    /// The directory that holds jobs in `state`.
    public func directory(_ state: JobState) -> URL {
        root.appending(path: state.directoryName, directoryHint: .isDirectory)
    }

    func path(of state: JobState) -> String {
        statePaths[state]
    }

    func syncIfDurable(_ state: JobState) throws(SpoolError) {
        if durability == .fsync {
            try FileSystem.syncDirectory(path(of: state))
        }
    }

    // MARK: Enqueue

    /// Enqueues a job: writes it into `tmp/`, fsyncs it, and renames it into `new/`.
    ///
    /// - Returns: the queued entry (its file name sorts after every job this process
    ///   enqueued before).
    @discardableResult
    public func enqueue(_ job: JobFile) throws(SpoolError) -> SpoolEntry {
        try enqueue(contents: job.encoded(), notBefore: job.notBefore, priority: JobFileName.tag(priority: job.priority))
    }

    /// Enqueues bytes as they are, without checking that they form a valid job. For
    /// producers that build their JSON themselves; the daemon fails an invalid file with a
    /// report that says why.
    @discardableResult
    public func enqueue(contents: Data) throws(SpoolError) -> SpoolEntry {
        try enqueue(contents: contents, notBefore: nil, priority: nil)
    }

    /// Enqueues `job` under `name` rather than a generated one, for a producer whose names say
    /// something (the daemon's recurring jobs: one name a period).
    ///
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` for a name that would not read
    ///   back as itself (a `.`, a `/`, a tag such as `.t…`), ``SpoolError/Code/alreadyExists``
    ///   when `new/` holds a job of that name.
    @discardableResult
    public func enqueue(_ job: JobFile, named name: String) throws(SpoolError) -> SpoolEntry {
        let fileName = JobFileName(
            name: name, notBefore: job.notBefore.map(JobFileName.seconds(notBefore:)), priority: JobFileName.tag(priority: job.priority))
        guard !name.isEmpty, !name.contains("/"), !name.contains("."), JobFileName(fileName: fileName.fileName)?.name == name else {
            throw SpoolError(code: .invalidField, path: nil, message: "\"\(name)\" cannot name a job file")
        }
        // A copy left in tmp/ by an enqueue that a crash cut short.
        try? FileSystem.removeFile(temporaryPath + "/" + fileName.fileName)
        return try enqueue(contents: job.encoded(), as: fileName)
    }

    /// Enqueues bytes, with `notBefore` and `priority` in the file's name (see `JobFileName`) so
    /// that claimers skip it until then, and order it, without reading it.
    private func enqueue(contents: Data, notBefore: Date?, priority: Int?) throws(SpoolError) -> SpoolEntry {
        let fileName = JobFileName(
            name: JobNameGenerator.shared.next(), notBefore: notBefore.map(JobFileName.seconds(notBefore:)), priority: priority)
        return try enqueue(contents: contents, as: fileName)
    }

    func enqueue(contents: Data, as fileName: JobFileName) throws(SpoolError) -> SpoolEntry {
        let temporary = temporaryPath + "/" + fileName.fileName
        let destination = path(of: .queued) + "/" + fileName.fileName
        try FileSystem.writeFile(temporary, contents: contents, exclusive: true, sync: durability == .fsync)
        do throws(SpoolError) {
            guard try FileSystem.rename(temporary, to: destination) else {
                throw SpoolError(code: .notFound, path: temporary, message: "vanished from tmp/ before it was queued")
            }
        } catch {
            try? FileSystem.removeFile(temporary)
            throw error
        }
        try syncIfDurable(.queued)
        return SpoolEntry(fileName: fileName, state: .queued, path: destination)
    }

    // MARK: Claim

    /// Claims the oldest queued job of the most urgent priority that is due (whose file name
    /// carries no `notBefore` time still to come), or returns nil when `new/` holds none.
    ///
    /// Safe to call from several threads, and from several processes on the same spool:
    /// each job is claimed by exactly one caller. Jobs enqueued after the last listing of
    /// `new/` are seen once the listed ones are used up.
    ///
    /// A bulk file (`*.jobs.jsonl`) is claimed whole, and its lines are handed out one at a
    /// time as jobs of their own (``ClaimedJob/bulkLine``), before the next file is claimed.
    public func claimNext() throws(SpoolError) -> ClaimedJob? {
        try claimNext(admitting: nil)
    }

    /// Claims as ``claimNext()`` does, leaving in `new/` the single job files that `admitting`
    /// refuses, given their kind and the queue they name (a paused kind or queue, one at its
    /// limit): they are read, not claimed, and what was read is remembered while they stay
    /// there. Bulk files are claimed whole, whatever their lines' kinds.
    public func claimNext(admitting: ((_ kind: String?, _ namedQueue: String?) -> Bool)?) throws(SpoolError) -> ClaimedJob? {
        if let line = nextBulkLine() {
            return line
        }
        var listedAfresh = false
        while true {
            let candidate: String? = try backlog.withLock { (backlog) throws(SpoolError) -> String? in
                let outranked =
                    backlog.outranked && !listedAfresh
                    && backlog.listedAt.map { $0.duration(to: .now) >= Self.outrankedRelistSpacing } ?? true
                if backlog.next == backlog.names.count || outranked {
                    if listedAfresh { return nil }
                    backlog.names = try queuedFileNames()
                    backlog.next = 0
                    backlog.listedAt = .now
                    backlog.outranked = false
                    listedAfresh = true
                    if backlog.names.isEmpty { return nil }
                }
                defer { backlog.next += 1 }
                return backlog.names[backlog.next]
            }
            guard let candidate else {
                return nil
            }
            // Scheduled for later: left in new/ for a later listing, unread.
            if JobFileName(fileName: candidate)?.isScheduled(after: now()) == true {
                continue
            }
            if let admitting, !candidate.hasSuffix(JobFileName.bulkSuffix) {
                let route = queuedRoute(of: candidate)
                if !admitting(route.kind, route.queue) { continue }
            }
            if let job = try claim(fileName: candidate) {
                guard job.isBulk else { return job }
                if let line = try openBulk(job) {
                    return line
                }
            }
        }
    }

    /// Claims one queued job by its file name in `new/`, or returns nil when it is no longer
    /// there (another claimer took it, or it never existed). A bulk file is claimed whole (see
    /// ``ClaimedJob/isBulk``), keeping the claim it had, if any.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/invalidPath`` when the name is
    ///   not a job file name; ``SpoolError/Code/io`` when the rename fails for another reason.
    public func claim(fileName: String) throws(SpoolError) -> ClaimedJob? {
        // A byte, not Foundation's `contains`, which searched the name as an NSString on every claim.
        guard let parsed = JobFileName(fileName: fileName), !fileName.utf8.contains(UInt8(ascii: "/")) else {
            throw SpoolError(code: .invalidPath, path: fileName, message: "is not the name of a job file (<name>.job.json)")
        }
        // A fresh claim in the name: the rename cannot meet a file of an earlier job with the
        // same name in active/, and this job's report can never be taken for another's.
        let claimed = parsed.isBulk && parsed.claim != nil ? parsed : parsed.withClaim(JobFileName.newClaim())
        let source = path(of: .queued) + "/" + fileName
        let destination = path(of: .running) + "/" + claimed.fileName
        guard try FileSystem.rename(source, to: destination) else {
            return nil
        }
        // Not synced here, one claim at a time: a claim lost to a power cut only returns the job
        // to new/. It is made durable before anything of the job's end is (see `syncClaims`).
        claimsNotYetDurable.withLock { $0 = true }
        let claimedAt = Date()
        var contents = Data()
        var loadFailure: SpoolError?
        let limit = parsed.isBulk ? Self.maximumBulkFileSize : Self.maximumJobFileSize
        do throws(SpoolError) {
            let (data, size) = try FileSystem.readFile(destination, limit: limit)
            if size > limit {
                loadFailure = SpoolError(
                    code: .malformedJobFile,
                    path: destination,
                    message: "\(parsed.isBulk ? "bulk" : "job") file is \(size) bytes, more than the limit of \(limit)"
                )
            } else {
                contents = data
            }
        } catch {
            loadFailure = error
        }
        return ClaimedJob(
            fileName: claimed,
            path: destination,
            contents: contents,
            claimedAt: claimedAt,
            loadFailure: loadFailure
        )
    }

    /// Makes the claims made so far durable (their renames from `new/` into `active/`), once for
    /// any number of them. Called before a claimed job's file or report moves on: otherwise a
    /// power cut could keep that later rename and lose the claim's, leaving the job both in
    /// `new/` and in `done/`, to be run and reported done a second time. The power-loss
    /// simulation found exactly that.
    ///
    /// The committer (filing in `done/`) and the coordinator (filing in `failed/`) call it at
    /// once: without `claimSyncs`, the second saw the flag the first had just taken and went on
    /// to its own rename before the first's fsyncs had returned (the power-loss simulation
    /// caught a job done twice that way).
    func syncClaims() throws(SpoolError) {
        guard durability == .fsync else { return }
        try claimSyncs.withLock { (syncs) throws(SpoolError) in
            guard claimsNotYetDurable.withLock({ pending in
                defer { pending = false }
                return pending
            }) else { return }
            do throws(SpoolError) {
                try FileSystem.syncDirectory(path(of: .queued))
                try FileSystem.syncDirectory(path(of: .running))
                syncs += 1
            } catch {
                claimsNotYetDurable.withLock { $0 = true }
                throw error
            }
        }
    }

    /// Forgets the listing of `new/` so that the next claim lists it again (after jobs were
    /// moved back into `new/` out of name order, e.g. by recovery or release).
    func forgetBacklog() {
        backlog.withLock { $0 = Backlog() }
    }

    /// A file named `fileName` arrived in `new/` (an inotify event, through ``SpoolWatcher``):
    /// when its priority is more urgent than that of the next name of the listing being claimed
    /// from, the listing is marked outranked, and a claim lists `new/` again (at most every
    /// ``outrankedRelistSpacing``). Without it, an urgent job would wait for every job of the
    /// listing, which may be the whole backlog. A job of the same priority needs nothing: it
    /// comes after the listed ones anyway.
    func noteArrival(fileName: String) {
        guard let arrived = JobFileName(fileName: fileName) else { return }
        backlog.withLock { backlog in
            guard !backlog.outranked, backlog.next < backlog.names.count,
                let next = JobFileName(fileName: backlog.names[backlog.next]),
                arrived.effectivePriority < next.effectivePriority
            else { return }
            backlog.outranked = true
        }
    }

    /// The job and bulk file names in `new/`, in claiming order: by priority (the `.p` tag, 0
    /// first), then by name, which is the enqueue order.
    func queuedFileNames() throws(SpoolError) -> [String] {
        var names: [String] = []
        // Only the names of another priority than the default are kept apart, by priority: a
        // spool whose jobs have none (most) sorts its names as it always did, with nothing more.
        var prioritized: [(priority: Int, name: String)] = []
        for fileName in try FileSystem.fileNames(in: path(of: .queued)) {
            guard let parsed = JobFileName(fileName: fileName) else { continue }
            if let priority = parsed.priority, priority != JobFile.defaultPriority {
                prioritized.append((priority, fileName))
            } else {
                names.append(fileName)
            }
        }
        names.sort()
        guard !prioritized.isEmpty else { return names }
        prioritized.sort { ($0.priority, $0.name) < ($1.priority, $1.name) }
        let ahead = prioritized.prefix { $0.priority < JobFile.defaultPriority }.map(\.name)
        let behind = prioritized.dropFirst(ahead.count).map(\.name)
        return ahead + names + behind
    }
}
