/// A description of the objects to fetch: entity (the type parameter), predicate, sort order,
/// offset and limit.
///
/// With ``includesPendingChanges`` (the default), a fetch sees the unsaved changes of the context
/// and of every ancestor up to the store: deleted objects drop out, updated ones are re-tested
/// against the predicate, inserted matches are added; then sort, offset and limit apply.
public struct FetchRequest<Object: ManagedObject>: Sendable {
    public var predicate: FetchPredicate<Object>
    public var sortDescriptors: [FetchSort<Object>]
    /// At most this many results; nil for all.
    public var fetchLimit: Int?
    public var fetchOffset: Int
    /// When positive, ``ManagedObjectContext/fetch(_:)`` returns faults whose values load this many
    /// at a time as they are first used, so that a large result does not load every row at once.
    public var fetchBatchSize: Int
    public var includesPendingChanges: Bool

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

    public init<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, ascending: Bool = true) {
        self.property = Object.entity.propertyName(for: keyPath)
        self.ascending = ascending
    }

    public static func ascending<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>) -> FetchSort {
        FetchSort(keyPath, ascending: true)
    }

    public static func descending<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>) -> FetchSort {
        FetchSort(keyPath, ascending: false)
    }
}
