/// A grouped aggregate computed in SQL (Core Data's dictionary result type with a group-by):
///
/// ```swift
/// let perLocation = AggregateRequest<JournalEntry>(
///     groupBy: [.property(\.location, as: "location")],
///     aggregates: [.count(as: "sessions"), .average(\.rating, as: "meanRating")])
/// struct LocationSummary: Decodable {
///     var location: String
///     var sessions: Int
///     var meanRating: Double?      // nil where no entry of the location has a rating
/// }
/// let rows = try context.aggregate(perLocation, as: LocationSummary.self)
/// ```
///
/// ``ManagedObjectContext/aggregate(_:)`` gives the same rows untyped, as dictionaries of
/// ``StoreValue``.
///
/// As with Core Data's dictionary results, aggregates are computed over the saved rows: unsaved
/// changes of the context and its ancestors are not included.
public struct AggregateRequest<Object: ManagedObject>: Sendable {
    /// Which rows are aggregated; all by default.
    public var predicate: FetchPredicate<Object>
    /// The keys rows are grouped by, in order; empty (the default) makes one group of every row.
    public var groupBy: [GroupKey<Object>]
    /// What is computed for each group; each result is named by its `as:`.
    public var aggregates: [AggregateExpression<Object>]

    /// Makes a request of `aggregates` over the rows `predicate` selects, grouped by `groupBy`.
    public init(
        predicate: FetchPredicate<Object> = .all, groupBy: [GroupKey<Object>] = [],
        aggregates: [AggregateExpression<Object>]
    ) {
        self.predicate = predicate
        self.groupBy = groupBy
        self.aggregates = aggregates
    }
}

/// A group-by key of an ``AggregateRequest``.
public struct GroupKey<Object: ManagedObject>: Sendable {
    let name: String
    let grouping: AggregateQuery.Grouping

    /// The property's value.
    public static func property<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> GroupKey {
        GroupKey(name: name, grouping: .value(Object.entity.propertyName(for: keyPath)))
    }

    /// The destination's primary key of a to-one relationship.
    public static func relationship<Destination: ManagedObject>(_ keyPath: KeyPath<Object, Destination?>, as name: String) -> GroupKey {
        GroupKey(name: name, grouping: .value(Object.entity.propertyName(for: keyPath)))
    }

    /// The day (UTC) of a date property, as text: `2026-11-25`.
    public static func day<Value: StoreValueConvertible>(of keyPath: KeyPath<Object, Value>, as name: String) -> GroupKey {
        GroupKey(name: name, grouping: .day(Object.entity.propertyName(for: keyPath)))
    }

    /// The month (1–12, UTC) of a date property.
    public static func month<Value: StoreValueConvertible>(of keyPath: KeyPath<Object, Value>, as name: String) -> GroupKey {
        GroupKey(name: name, grouping: .month(Object.entity.propertyName(for: keyPath)))
    }
}

/// An aggregate of an ``AggregateRequest``. NULL values are ignored, as in SQL.
public struct AggregateExpression<Object: ManagedObject>: Sendable {
    let name: String
    let function: AggregateQuery.Function

    /// The number of rows in the group.
    public static func count(as name: String) -> AggregateExpression {
        AggregateExpression(name: name, function: .countRows)
    }

    /// The number of non-NULL values of the property in the group.
    public static func count<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> AggregateExpression {
        function(AggregateQuery.Function.count, keyPath, name)
    }

    /// The mean of the property's non-NULL values in the group, a `.real`; `.null` when there are
    /// none.
    public static func average<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> AggregateExpression {
        function(AggregateQuery.Function.average, keyPath, name)
    }

    /// The smallest non-NULL value of the property in the group, in the store's order; `.null` when
    /// there are none.
    public static func minimum<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> AggregateExpression {
        function(AggregateQuery.Function.minimum, keyPath, name)
    }

    /// The largest non-NULL value of the property in the group, in the store's order; `.null` when
    /// there are none.
    public static func maximum<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> AggregateExpression {
        function(AggregateQuery.Function.maximum, keyPath, name)
    }

    /// The sum of the property's non-NULL values in the group (an `.integer` for integer
    /// properties); `.null` when there are none.
    public static func sum<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, as name: String) -> AggregateExpression {
        function(AggregateQuery.Function.sum, keyPath, name)
    }

    private static func function<Value>(
        _ function: (String) -> AggregateQuery.Function, _ keyPath: KeyPath<Object, Value>, _ name: String
    ) -> AggregateExpression {
        AggregateExpression(name: name, function: function(Object.entity.propertyName(for: keyPath)))
    }
}

extension ManagedObjectContext {
    /// Runs a grouped aggregate over the saved rows; one dictionary per group, keyed by the
    /// names given to the keys and aggregates, ordered by the group keys.
    public func aggregate<Object: ManagedObject>(_ request: AggregateRequest<Object>) throws -> [[String: StoreValue]] {
        let query = AggregateQuery(
            entity: try entity(of: Object.self), predicate: request.predicate.node,
            groups: request.groupBy.map { ($0.name, $0.grouping) },
            aggregates: request.aggregates.map { ($0.name, $0.function) })
        return try store.aggregate(query, on: storeReader)
    }

    /// Runs a grouped aggregate over the saved rows, and decodes each group into `Row`: each of
    /// its properties is read from the group key or aggregate of the same name (the `as:` of the
    /// request), as an `Int`, `Double`, `String`, `Bool`, `Date`, `Data` or an optional of one;
    /// an optional property takes nil where the value is NULL (an average of no values).
    ///
    /// - Throws: a `DecodingError` naming the property when the request has no value of its name,
    ///   or one that is not of its type (NULL into a non-optional property).
    public func aggregate<Object: ManagedObject, Row: Decodable>(_ request: AggregateRequest<Object>, as type: Row.Type) throws -> [Row] {
        try aggregate(request).map { try Row(from: AggregateRowDecoder(row: $0)) }
    }
}
