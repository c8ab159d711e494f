public import Foundation

/// What a finished job did: written as `done/<stem>.result.json` beside the job file (`<stem>.job.json`).
///
/// `details` holds whatever the kind reports (counts, output paths, skipped values):
/// `["observations": 1440, "output": "journal.csv"]`.
public struct JobResultReport: Sendable, Hashable, Codable {
    /// The job's name as it was enqueued (the file name without the spool's tags and `.job.json`).
    public var name: String
    /// The `id` of the job file, if it had one.
    public var id: String?
    /// The job kind.
    public var kind: String
    /// How many attempts it took, counting the last (successful) one.
    public var attempts: Int
    /// How many times a daemon stopped while running it before this run.
    public var interruptions: Int
    /// When the last attempt started.
    public var startedAt: Date
    /// When the job finished.
    public var finishedAt: Date
    /// What the job did, in the kind's own terms.
    public var details: [String: JSONValue]

    public init(
        name: String,
        id: String?,
        kind: String,
        attempts: Int,
        interruptions: Int = 0,
        startedAt: Date,
        finishedAt: Date,
        details: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.id = id
        self.kind = kind
        self.attempts = attempts
        self.interruptions = interruptions
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.details = details
    }

    /// The report as pretty-printed JSON.
    public func encoded() throws(SpoolError) -> Data {
        try ReportCoding.encode(fields)
    }

    /// The report as a JSON object: what ``encoded()`` writes and `encode(to:)` encodes.
    private var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            CodingKeys.name.rawValue: .string(name),
            CodingKeys.kind.rawValue: .string(kind),
            CodingKeys.attempts.rawValue: .integer(attempts),
            CodingKeys.interruptions.rawValue: .integer(interruptions),
            CodingKeys.startedAt.rawValue: .string(ReportCoding.string(from: startedAt)),
            CodingKeys.finishedAt.rawValue: .string(ReportCoding.string(from: finishedAt)),
            CodingKeys.details.rawValue: .object(details),
        ]
        if let id {
            fields[CodingKeys.id.rawValue] = .string(id)
        }
        return fields
    }

    /// Reads a report written by ``encoded()``.
    public init(data: Data, path: String? = nil) throws(SpoolError) {
        self = try ReportCoding.decode(Self.self, from: data, path: path)
    }

    private enum CodingKeys: String, CodingKey {
        case name, id, kind, attempts, interruptions, startedAt, finishedAt, details
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        kind = try container.decode(String.self, forKey: .kind)
        attempts = try container.decode(Int.self, forKey: .attempts)
        interruptions = try container.decodeIfPresent(Int.self, forKey: .interruptions) ?? 0
        startedAt = try container.decodeReportDate(forKey: .startedAt)
        finishedAt = try container.decodeReportDate(forKey: .finishedAt)
        details = try container.decodeIfPresent([String: JSONValue].self, forKey: .details) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(fields).encode(to: encoder)
    }
}
