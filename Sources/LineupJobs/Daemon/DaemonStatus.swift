public import Foundation
public import LineupSpool

/// What the daemon is doing, written atomically to `<spool>/status.json` every status interval
/// and after every flush, for `lineup status`.
///
/// ```swift
/// let status = try DaemonStatus(contentsOfSpoolAt: spoolURL)
/// for job in status.running { print(job.job, job.progress.fractionCompleted ?? 0) }
/// ```
public struct DaemonStatus: Sendable, Hashable, Codable {
    /// The status file's name in the spool's root.
    public static let fileName = "status.json"

    /// The daemon's phase.
    public enum Phase: String, Sendable, Hashable, Codable {
        case running, stopping, stopped
    }

    /// A job that is running now.
    public struct RunningJob: Sendable, Hashable, Codable {
        /// The job: its name, claim, id, kind and attempt.
        public var job: JobInfo
        /// When this attempt started running (not when the job was claimed).
        public var startedAt: Date
        /// How far it has got, as the job last reported it.
        public var progress: JobProgress.Snapshot

        /// Makes a running-job entry from its parts; the daemon makes these, tests and tools decode
        /// them.
        public init(job: JobInfo, startedAt: Date, progress: JobProgress.Snapshot) {
            self.job = job
            self.startedAt = startedAt
            self.progress = progress
        }
    }

    /// The daemon's process id.
    public var pid: Int32
    /// Whether the daemon runs, is stopping (draining its jobs) or has stopped.
    public var phase: Phase
    /// When the daemon started.
    public var startedAt: Date
    /// When this status was written; the daemon rewrites it every
    /// ``DaemonConfiguration/statusInterval`` and after every flush.
    public var updatedAt: Date
    /// How many jobs may run at once, in all the queues together.
    public var maxConcurrentJobs: Int
    /// The flush interval in seconds.
    public var flushInterval: Double
    /// The last flush, whatever it did; nil before the first.
    public var lastFlush: FlushSummary?
    /// The last flushes that wrote rows or acknowledged jobs, or failed, newest first (at most
    /// ``recentFlushLimit``).
    public var recentFlushes: [FlushSummary]?
    /// Jobs acknowledged in each of the last 60 minutes, oldest first; the last is the minute
    /// under way.
    public var acknowledgedPerMinute: [Int]?
    /// The rows the main context held unsaved when it was last asked (at the status update
    /// before this one, or earlier while a flush held it): what the next flush writes, and what a
    /// crash before it would lose. Nil until it has answered once.
    public var mainContextUnsavedRows: Int?
    /// Flushes that failed in a row (0 after a successful one).
    public var consecutiveFlushFailures: Int
    /// Running jobs, oldest first.
    public var running: [RunningJob]
    /// Jobs claimed and queued but not started (waiting for a slot or a dependency).
    public var queued: Int
    /// Jobs that finished and wait for the next flush to be acknowledged.
    public var awaitingFlush: Int
    /// Jobs waiting to be attempted again.
    public var waitingForRetry: Int
    /// Jobs waiting for a job in their `after` list to be claimed.
    public var waitingForDependencies: Int
    /// Since when finished jobs could not be acknowledged (flushes, or the filing of what they
    /// carried, failed); nil while acknowledgements go through.
    public var acknowledgementsFailingSince: Date?
    /// Whether claiming waits for a flush to succeed (see `DaemonConfiguration.flushBacklogLimit`).
    public var claimingPaused: Bool
    /// The kinds and queues an operator paused (`lineup pause`), as the daemon last read them;
    /// nil when none is.
    public var paused: [JobScope]?
    /// The state of each configured limit (``DaemonConfiguration/limits``); nil when none is.
    public var limits: [LimitState]?

    /// Makes a status from its parts; the daemon makes these, tests and tools decode them.
    public init(
        pid: Int32, phase: Phase, startedAt: Date, updatedAt: Date, maxConcurrentJobs: Int, flushInterval: Double,
        lastFlush: FlushSummary?, consecutiveFlushFailures: Int, running: [RunningJob], queued: Int, awaitingFlush: Int,
        waitingForRetry: Int, waitingForDependencies: Int, acknowledgementsFailingSince: Date? = nil, claimingPaused: Bool = false
    ) {
        self.acknowledgementsFailingSince = acknowledgementsFailingSince
        self.claimingPaused = claimingPaused
        self.pid = pid
        self.phase = phase
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.maxConcurrentJobs = maxConcurrentJobs
        self.flushInterval = flushInterval
        self.lastFlush = lastFlush
        self.consecutiveFlushFailures = consecutiveFlushFailures
        self.running = running
        self.queued = queued
        self.awaitingFlush = awaitingFlush
        self.waitingForRetry = waitingForRetry
        self.waitingForDependencies = waitingForDependencies
    }

    /// How many flushes ``recentFlushes`` keeps.
    public static let recentFlushLimit = 10

    /// Reads `<spoolRoot>/status.json`.
    public init(contentsOfSpoolAt spoolRoot: URL) throws {
        let data = try Data(contentsOf: Self.url(inSpoolAt: spoolRoot))
        self = try Self.decoder.decode(Self.self, from: data)
    }

    /// Where the status file of a spool lies.
    public static func url(inSpoolAt spoolRoot: URL) -> URL {
        spoolRoot.appending(path: fileName)
    }

    /// Writes the file atomically (a temporary file renamed over the old one), so that a
    /// reader sees the old status or the new one, never half of one.
    ///
    /// The status matters most when the disk is full, and then the temporary file cannot be
    /// written. So the file is padded with blank space to whole pages, and when the atomic
    /// write fails, the new status overwrites the old one in place, in pages the file holds
    /// already (a reader may then catch it half written, and reads it again).
    func write(toSpoolAt spoolRoot: URL) throws {
        var data = try Self.encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        let page = 4096
        data.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (page - data.count % page) % page))
        let url = Self.url(inSpoolAt: spoolRoot)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            guard let handle = try? FileHandle(forUpdating: url), let size = try? handle.seekToEnd(), size >= data.count
            else { throw error }
            defer { try? handle.close() }
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: data)
            try handle.truncate(atOffset: UInt64(data.count))
        }
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
