/// How many job files lie in each directory of the spool.
public struct SpoolCounts: Sendable, Hashable, CustomStringConvertible {
    /// Jobs in `new/`.
    public var queued: Int
    /// Jobs in `active/`.
    public var running: Int
    /// Jobs in `done/`.
    public var done: Int
    /// Jobs in `failed/`.
    public var failed: Int

    public init(queued: Int, running: Int, done: Int, failed: Int) {
        self.queued = queued
        self.running = running
        self.done = done
        self.failed = failed
    }

    /// The count for one state.
    public subscript(state: SpoolState) -> Int {
        switch state {
        case .queued: queued
        case .running: running
        case .done: done
        case .failed: failed
        }
    }

    public var description: String {
        "queued \(queued), running \(running), done \(done), failed \(failed)"
    }
}
