/// An ``AggregateRequest`` as the store runs it: which rows, how they are grouped, and what is
/// computed for each group, each result named. The store compiles it into its own SQL.
package struct AggregateQuery: Sendable {
    /// What a group is keyed by.
    enum Grouping: Sendable {
        /// The property's value (a to-one relationship's is the destination's primary key).
        case value(String)
        /// The day (UTC) of a date property, as text: `2026-11-25`.
        case day(String)
        /// The month (1–12, UTC) of a date property.
        case month(String)
    }

    /// What is computed over a group. NULL values are ignored, as in SQL.
    enum Function: Sendable {
        /// The number of rows.
        case countRows
        /// The number of the property's non-NULL values.
        case count(String)
        case average(String)
        case minimum(String)
        case maximum(String)
        case sum(String)
    }

    let entity: EntityDescription
    let predicate: PredicateNode
    let groups: [(name: String, grouping: Grouping)]
    let aggregates: [(name: String, function: Function)]
}
