/// What a batch request hands back.
public enum BatchResultType: Sendable {
    /// The number of rows affected only: constant memory, however many rows.
    case count
    /// The affected rows' IDs too, to merge into other contexts with
    /// ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
    case objectIDs
}

/// The outcome of a ``BatchDeleteRequest`` or ``BatchUpdateRequest``.
public struct BatchResult: Sendable {
    /// The number of rows deleted or updated.
    public let count: Int
    /// The IDs of the deleted objects, when the request asked for IDs (otherwise empty).
    public let deletedObjectIDs: [ObjectID]
    /// The IDs of the updated objects, when the request asked for IDs (otherwise empty).
    public let updatedObjectIDs: [ObjectID]
}
