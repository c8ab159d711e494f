/// Deletes the objects that match a predicate with one SQL statement, without loading them
/// (Core Data's `NSBatchDeleteRequest`): the way to prune years of rows.
///
/// ```swift
/// let prune = BatchDeleteRequest<BuoyObservation>(predicate: \.time < cutoff)
/// let result = try context.execute(prune)   // result.count rows are gone from the store
/// ```
///
/// It runs in the store at once, as its own transaction, and does not see unsaved changes: see
/// `ManagedObjectContext.execute(_:)` for how the contexts take it.
/// Like Core Data's, it applies no delete rules and calls no `validateForSave()`.
public struct BatchDeleteRequest<Object: ManagedObject>: Sendable {
    /// Which rows are deleted, evaluated in SQL over the saved rows.
    public var predicate: FetchPredicate<Object>
    /// Whether the result carries the deleted objects' IDs as well as their count; `.count` by
    /// default.
    public var resultType: BatchResultType

    /// Makes a request that deletes every row `predicate` matches.
    public init(predicate: FetchPredicate<Object>, resultType: BatchResultType = .count) {
        self.predicate = predicate
        self.resultType = resultType
    }
}
