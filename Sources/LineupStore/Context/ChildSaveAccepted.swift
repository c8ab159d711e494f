/// A child context's save was accepted into this context. Posted on this context's queue at the
/// end of the child's save, when the changes are held here (and not yet in this context's
/// parent or on disk).
///
/// Core Data has no such event: its parent context posts objects-did-change, which costs a set
/// of IDs per save. This one costs two integers, so that whoever flushes the stack can watch how
/// much the main context holds and flush before it grows without bound (the daemon's
/// `flushRowLimit`, and `lineup run`).
public struct ChildSaveAccepted: Sendable {
    /// The name of the child context that saved.
    public let childName: String
    /// The unsaved rows this context now holds from its children: what a save of this context
    /// would carry to its parent.
    public let pendingRowCount: Int
}
