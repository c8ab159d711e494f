/// Which job an event or a status line is about.
public struct JobInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The job's name in the spool, as it was enqueued; several jobs may share it.
    public var name: String
    /// The claim under which it runs (see `ClaimedJob.claim`): what tells apart two jobs of
    /// one name. Empty for a job not claimed from a spool.
    public var claim: String
    /// The job file's `id`, if it has one (and could be read).
    public var id: String?
    /// The job kind, if the job file could be read.
    public var kind: String?
    /// The current or last attempt, from 1; 0 before the first.
    public var attempt: Int

    /// Makes a job's identity; `claim` is empty for a job not claimed from a spool.
    public init(name: String, claim: String = "", id: String?, kind: String?, attempt: Int) {
        self.name = name
        self.claim = claim
        self.id = id
        self.kind = kind
        self.attempt = attempt
    }

    /// `"<kind> <id or name> (attempt <n>)"`, with `?` for an unknown kind: how log lines name the
    /// job.
    public var description: String {
        "\(kind ?? "?") \(id ?? name) (attempt \(attempt))"
    }
}
