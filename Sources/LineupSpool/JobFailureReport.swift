public import Foundation

/// Why a job failed: written as `failed/<stem>.error.json` beside the job file (`<stem>.job.json`).
public struct JobFailureReport: Sendable, Hashable, Codable {
    /// The job's name as it was enqueued (the file name without the spool's tags and `.job.json`).
    public var name: String
    /// The `id` of the job file, if it had one and could be read.
    public var id: String?
    /// The job kind, if the job file could be read.
    public var kind: String?
    /// The last error, as a sentence that names the file involved.
    public var reason: String
    /// How many attempts were made.
    public var attempts: Int
    /// How many times a daemon stopped while running it.
    public var interruptions: Int
    /// Whether running it again could succeed (an I/O error) or not (bad input).
    public var retryable: Bool
    /// Row changes that its failed attempts had saved in chunks before failing: kept, and
    /// possibly on disk (a re-run upserts them). 0 when none.
    public var keptRowChanges: Int = 0
    /// When the last attempt started, if one started.
    public var startedAt: Date?
    /// When the job was given up.
    public var finishedAt: Date

    public init(
        name: String,
        id: String?,
        kind: String?,
        reason: String,
        attempts: Int,
        interruptions: Int = 0,
        retryable: Bool,
        startedAt: Date?,
        finishedAt: Date
    ) {
        self.name = name
        self.id = id
        self.kind = kind
        self.reason = reason
        self.attempts = attempts
        self.interruptions = interruptions
        self.retryable = retryable
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// The report as pretty-printed JSON.
    public func encoded() throws(SpoolError) -> Data {
        try ReportCoding.encode(fields)
    }

    /// The report as a JSON object: what ``encoded()`` writes and `encode(to:)` encodes.
    private var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            CodingKeys.name.rawValue: .string(name),
            CodingKeys.reason.rawValue: .string(reason),
            CodingKeys.attempts.rawValue: .integer(attempts),
            CodingKeys.interruptions.rawValue: .integer(interruptions),
            CodingKeys.retryable.rawValue: .bool(retryable),
            CodingKeys.finishedAt.rawValue: .string(ReportCoding.string(from: finishedAt)),
        ]
        if keptRowChanges > 0 {
            fields[CodingKeys.keptRowChanges.rawValue] = .integer(keptRowChanges)
        }
        if let id {
            fields[CodingKeys.id.rawValue] = .string(id)
        }
        if let kind {
            fields[CodingKeys.kind.rawValue] = .string(kind)
        }
        if let startedAt {
            fields[CodingKeys.startedAt.rawValue] = .string(ReportCoding.string(from: startedAt))
        }
        return fields
    }

    /// Reads a report written by ``encoded()``.
    public init(data: Data, path: String? = nil) throws(SpoolError) {
        self = try ReportCoding.decode(Self.self, from: data, path: path)
    }

    private enum CodingKeys: String, CodingKey {
        case name, id, kind, reason, attempts, interruptions, retryable, keptRowChanges, startedAt, finishedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        reason = try container.decode(String.self, forKey: .reason)
        attempts = try container.decode(Int.self, forKey: .attempts)
        interruptions = try container.decodeIfPresent(Int.self, forKey: .interruptions) ?? 0
        retryable = try container.decode(Bool.self, forKey: .retryable)
        keptRowChanges = try container.decodeIfPresent(Int.self, forKey: .keptRowChanges) ?? 0
        startedAt = try container.decodeReportDateIfPresent(forKey: .startedAt)
        finishedAt = try container.decodeReportDate(forKey: .finishedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(fields).encode(to: encoder)
    }
}
