public import LineupSpool

/// What ``JobTester/drain()`` settled: the jobs it left in `done/` and in `failed/`, with the
/// reports the daemon wrote for them.
public struct DrainReport: Sendable {
    /// The jobs done, acknowledged by a flush, in the order their reports' names sort.
    public var done: [JobResultReport]
    /// The jobs failed for good, with their reasons.
    public var failed: [JobFailureReport]

    /// The kinds of the jobs done, in order (several of a kind repeat it).
    public var doneKinds: [String] { done.map(\.kind) }

    /// The done job whose id (or, without an id, whose name) is `id`.
    public func done(_ id: String) -> JobResultReport? {
        done.first { ($0.id ?? $0.name) == id }
    }
}
