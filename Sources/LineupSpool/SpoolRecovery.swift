/// What ``SpoolDirectory/recoverActive(maxInterruptions:)`` did with the files it found in
/// `active/`. Each list holds job names (reports are named after them), in name order.
public struct SpoolRecovery: Sendable, Hashable {
    /// Jobs moved back to `new/` with one more interruption counted.
    public var requeued: [String] = []
    /// Jobs moved to `failed/` because they reached the interruption limit.
    public var poisoned: [String] = []
    /// Jobs whose report already lay in `done/`, moved there (the crash came between the
    /// report and the move).
    public var completed: [String] = []
    /// Jobs whose report already lay in `failed/`, moved there.
    public var failed: [String] = []

    public init() {}

    /// Whether `active/` held nothing.
    public var isEmpty: Bool {
        requeued.isEmpty && poisoned.isEmpty && completed.isEmpty && failed.isEmpty
    }
}
