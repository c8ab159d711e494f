/// Which job an event or a status line is about.
public struct JobInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The job's stable name in the spool (reports are named after it).
    public var name: String
    /// The job file's `id`, if it has one (and could be read).
    public var id: String?
    /// The job kind, if the job file could be read.
    public var kind: String?
    /// The current or last attempt, from 1; 0 before the first.
    public var attempt: Int

    public init(name: String, id: String?, kind: String?, attempt: Int) {
        self.name = name
        self.id = id
        self.kind = kind
        self.attempt = attempt
    }

    public var description: String {
        "\(kind ?? "?") \(id ?? name) (attempt \(attempt))"
    }
}
