/// What `POST /api/jobs/bulk` does to every job of a filtered set.
public enum JobBulkAction: String, Sendable, Hashable, CaseIterable, Codable {
    /// Queue failed jobs again, as `lineup retry`.
    case retry
    /// Remove failed jobs for good.
    case discard
    /// Fail queued jobs at once, and have running ones stopped by the daemons that hold them
    /// (as `lineup cancel`): "cancelled by an operator", without retries.
    case cancel
}

/// What a bulk action did.
public struct JobBulkOutcome: Sendable, Encodable {
    public var action: JobBulkAction
    /// How many jobs it acted on.
    public var acted: Int
    /// How many matched but could not be acted on: gone meanwhile (a daemon claimed a queued job,
    /// another operator retried a failed one), or a running one that finished before its daemon was asked.
    public var skipped: Int
    /// Set when the action stopped at its bound before the end of the set: post again with it as
    /// the filter's cursor to go on.
    public var next: String?

    public init(action: JobBulkAction, acted: Int, skipped: Int, next: String?) {
        self.action = action
        self.acted = acted
        self.skipped = skipped
        self.next = next
    }
}
