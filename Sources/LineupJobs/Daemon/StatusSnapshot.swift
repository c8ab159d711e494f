public import Foundation
public import LineupSpool

/// A spool's jobs and its daemon's status, read once: what `lineup status --json` prints and
/// the dashboard's `GET /api/status` serves, in the same shape.
public struct StatusSnapshot: Sendable, Encodable {
    /// A job in `failed/`, with why.
    public struct Failure: Sendable, Encodable {
        /// The name it was enqueued under.
        public var name: String
        /// Its job file's `id`, if it has one.
        public var id: String?
        /// Its job kind, if the file could be read.
        public var kind: String?
        /// Why it failed, as its failure report says.
        public var reason: String
        /// How many attempts were made.
        public var attempts: Int
        /// When it failed for good.
        public var finishedAt: Date

        package init(name: String, id: String?, kind: String?, reason: String, attempts: Int, finishedAt: Date) {
            self.name = name
            self.id = id
            self.kind = kind
            self.reason = reason
            self.attempts = attempts
            self.finishedAt = finishedAt
        }
    }

    /// How many jobs are in each state: the job files in `new/`, `active/`, `done/` and
    /// `failed/`, or the rows of a jobs table.
    public var counts: JobCounts
    /// Files in `new/` that are not named as jobs and will never run.
    public var unrecognized: [String]
    /// The daemon's status file; nil when no daemon ever ran on this spool.
    public var daemon: DaemonStatus?
    /// The latest failures, newest first.
    public var recentFailures: [Failure]
    /// With jobs in a database: the daemons that hold a lease on it; nil for a spool, whose
    /// daemon is ``daemon``.
    public var daemons: [DaemonLease]?
    /// The kinds and queues paused (`lineup pause`); nil when none is. The daemon's limits are in
    /// ``daemon``'s ``DaemonStatus/limits``.
    public var paused: [JobScope]?

    /// How many of the latest failures ``recentFailures`` lists by default.
    public static let recentFailureCount = 5

    /// Reads the spool at `directory` and its daemon's status file.
    public init(_ directory: SpoolDirectory, recentFailureCount: Int = Self.recentFailureCount) throws {
        counts = try directory.counts()
        unrecognized = try directory.unrecognizedQueueEntries()
        daemon = try? DaemonStatus(contentsOfSpoolAt: directory.root)
        recentFailures = try Self.failures(in: directory)
            .prefix(recentFailureCount)
            .map { $0 }
        paused = try Self.nonEmpty(directory.pausedScopes())
    }

    static func nonEmpty(_ scopes: [JobScope]) -> [JobScope]? {
        scopes.isEmpty ? nil : scopes
    }

    /// The jobs of a database (LineupPostgres reads them): `queued` are its available jobs (due
    /// or not), and the daemons that share it are listed.
    package init(counts: JobCounts, daemons: [DaemonLease], recentFailures: [Failure], paused: [JobScope] = []) {
        self.counts = counts
        unrecognized = []
        daemon = nil
        self.daemons = daemons
        self.recentFailures = recentFailures
        self.paused = Self.nonEmpty(paused)
    }

    /// Every job in `failed/` with its report, newest first (a file whose report cannot be
    /// read is left out).
    public static func failures(in directory: SpoolDirectory) throws -> [Failure] {
        try directory.entries(.failed)
            .compactMap { entry in
                (try? directory.failureReport(for: entry)).map {
                    Failure(name: entry.name, id: $0.id, kind: $0.kind, reason: $0.reason, attempts: $0.attempts, finishedAt: $0.finishedAt)
                }
            }
            .sorted { $0.finishedAt > $1.finishedAt }
    }

    /// One line of JSON, keys sorted, dates in ISO 8601.
    public func json() throws -> String {
        String(decoding: try Self.encoder.encode(self), as: UTF8.self)
    }

    /// The encoder of every JSON the status and the dashboard's API write.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
