/// What an operator control applies to: every job of one kind, or every job of one named queue
/// (the daemon's `queues`). Written `kind:NAME` or `queue:NAME` in files, flags and the API.
public struct JobScope: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Which of the two a scope names.
    public enum Level: String, Sendable, Hashable, Codable, CaseIterable {
        case kind, queue
    }

    public var level: Level
    /// The kind's or the queue's name.
    public var name: String

    public init(_ level: Level, _ name: String) {
        self.level = level
        self.name = name
    }

    /// Every job of kind `name`.
    public static func kind(_ name: String) -> JobScope { JobScope(.kind, name) }
    /// Every job of the named queue `name`.
    public static func queue(_ name: String) -> JobScope { JobScope(.queue, name) }

    /// Parses `kind:NAME` or `queue:NAME`; nil for anything else, an empty name included.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), let level = Level(rawValue: String(text[..<colon])) else { return nil }
        let name = String(text[text.index(after: colon)...])
        guard !name.isEmpty, !name.contains(where: { $0.isNewline }) else { return nil }
        self.init(level, name)
    }

    public var description: String { "\(level.rawValue):\(name)" }

    public static func < (lhs: JobScope, rhs: JobScope) -> Bool {
        (lhs.level.rawValue, lhs.name) < (rhs.level.rawValue, rhs.name)
    }

    /// Whether a job of `kind`, run in the queue named `queue` (nil: the default queue), falls in
    /// this scope.
    public func covers(kind: String?, queue: String?) -> Bool {
        switch level {
        case .kind: kind == name
        case .queue: queue == name
        }
    }

    // As its text, so that files and the API read `"kind:import-buoy"`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let scope = JobScope(text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not `kind:NAME` or `queue:NAME`"))
        }
        self = scope
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
