/// Sets properties of the objects that match a predicate with one SQL statement, without loading
/// them (Core Data's `NSBatchUpdateRequest`):
///
/// ```swift
/// let archive = BatchUpdateRequest<JournalEntry>(
///     predicate: \.date < cutoff, set: [.set(\.rating, to: nil)])
/// try context.execute(archive)
/// ```
///
/// Every row it changes gets one new version: a context that holds unsaved changes of such a row
/// based on the older version meets a conflict at its save, unless it took the batch's outcome
/// first (see `ManagedObjectContext.execute(_:)`). Like Core
/// Data's, it calls no `validateForSave()`; a uniqueness constraint is still enforced by the
/// store's unique index, and a violation fails the whole request.
public struct BatchUpdateRequest<Object: ManagedObject>: Sendable {
    /// Which rows are changed, evaluated in SQL over the saved rows.
    public var predicate: FetchPredicate<Object>
    /// The properties set and their new values; at least one.
    public var assignments: [BatchAssignment<Object>]
    /// Whether the result carries the changed objects' IDs as well as their count; `.count` by
    /// default.
    public var resultType: BatchResultType

    /// Makes a request that sets `assignments` on every row `predicate` matches; `assignments` must
    /// not be empty.
    public init(
        predicate: FetchPredicate<Object>, set assignments: [BatchAssignment<Object>],
        resultType: BatchResultType = .count
    ) {
        precondition(!assignments.isEmpty, "a batch update needs at least one property to set")
        self.predicate = predicate
        self.assignments = assignments
        self.resultType = resultType
    }
}

/// One property that a ``BatchUpdateRequest`` sets, with its new value.
public struct BatchAssignment<Object: ManagedObject>: Sendable {
    let property: String
    let value: StoreValue

    /// Sets the property at `keyPath` to `value` (nil for NULL, for an optional property).
    public static func set<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, to value: Value) -> Self {
        BatchAssignment(property: Object.entity.propertyName(for: keyPath), value: value.storeValue)
    }
}
