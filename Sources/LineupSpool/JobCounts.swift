/// How many jobs are in each ``JobState``: the job files in each directory of a spool, or the
/// rows in each state of a jobs table. Encoded as one object keyed by state
/// (`{"done":…,"failed":…,"queued":…,"running":…}`), as `lineup status --json` and the
/// dashboard's `GET /api/status` serve it.
public struct JobCounts: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Queued jobs (in `new/`), due or not.
    public var queued: Int
    /// Running jobs (in `active/`).
    public var running: Int
    /// Done jobs (in `done/`).
    public var done: Int
    /// Failed jobs (in `failed/`).
    public var failed: Int

    /// The counts, one a state.
    public init(queued: Int, running: Int, done: Int, failed: Int) {
        self.queued = queued
        self.running = running
        self.done = done
        self.failed = failed
    }

    /// No job in any state.
    public static let zero = JobCounts(queued: 0, running: 0, done: 0, failed: 0)

    /// The count for one state.
    public subscript(state: JobState) -> Int {
        get {
            switch state {
            case .queued: queued
            case .running: running
            case .done: done
            case .failed: failed
            }
        }
        set {
            switch state {
            case .queued: queued = newValue
            case .running: running = newValue
            case .done: done = newValue
            case .failed: failed = newValue
            }
        }
    }

    public var description: String {
        "queued \(queued), running \(running), done \(done), failed \(failed)"
    }
}
