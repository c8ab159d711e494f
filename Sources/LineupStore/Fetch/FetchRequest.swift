/// A description of the objects to fetch: entity (the type parameter), predicate, sort order,
/// offset and limit.
///
/// With ``includesPendingChanges`` (the default), a fetch sees the unsaved changes of the context
/// and of every ancestor up to the store: deleted objects drop out, updated ones are re-tested
/// against the predicate, inserted matches are added; then sort, offset and limit apply.
public struct FetchRequest<Object: ManagedObject>: Sendable {
    /// Which objects to fetch; all by default.
    public var predicate: FetchPredicate<Object>
    /// The sort keys, the first deciding first; ties, and a request without any, go by primary key.
    public var sortDescriptors: [FetchSort<Object>]
    /// At most this many results; nil for all.
    public var fetchLimit: Int?
    /// How many of the sorted results to skip before the first returned; 0 by default.
    public var fetchOffset: Int
    /// When positive, ``ManagedObjectContext/fetch(_:)`` returns faults whose values load this many
    /// at a time as they are first used, so that a large result does not load every row at once.
    public var fetchBatchSize: Int
    /// Whether the fetch sees the unsaved changes of the context and its ancestors (see above);
    /// true by default. False fetches the saved rows only.
    public var includesPendingChanges: Bool

    /// Makes a request; by default every object, in primary-key order, no limit, no batching,
    /// unsaved changes included.
    public init(
        predicate: FetchPredicate<Object> = .all,
        sortedBy sortDescriptors: [FetchSort<Object>] = [],
        limit: Int? = nil,
        offset: Int = 0,
        batchSize: Int = 0,
        includesPendingChanges: Bool = true
    ) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = limit
        self.fetchOffset = offset
        self.fetchBatchSize = batchSize
        self.includesPendingChanges = includesPendingChanges
    }
}

/// One sort key of a fetch: a property and a direction. Ties are broken by primary key, so that
/// results (and batches) are stable.
public struct FetchSort<Object: ManagedObject>: Sendable {
    let property: String
    let ascending: Bool

    /// Sorts by the property at `keyPath`, ascending by default; NULL comes first ascending, last
    /// descending.
    public init<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, ascending: Bool = true) {
        self.property = Object.entity.propertyName(for: keyPath)
        self.ascending = ascending
    }

    /// Sorts by the property at `keyPath`, smallest first (NULL first).
    public static func ascending<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>) -> FetchSort {
        FetchSort(keyPath, ascending: true)
    }

    /// Sorts by the property at `keyPath`, largest first (NULL last).
    public static func descending<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>) -> FetchSort {
        FetchSort(keyPath, ascending: false)
    }
}
