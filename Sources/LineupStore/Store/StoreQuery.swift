/// A fetch as the store runs it: a predicate (which the store compiles), sort keys (property
/// index, ascending), limit and offset, and which columns to read.
package struct StoreQuery: Sendable {
    enum Columns: Sendable {
        case all
        /// Only the sort properties (the other values are NULL): for IDs, counts and batched faults.
        case sortKeys
    }

    package let entity: EntityDescription
    package let predicate: PredicateNode
    let sorts: [(Int, Bool)]
    var limit: Int?
    var offset: Int
    let columns: Columns
}

extension StoreQuery {
    /// The properties whose values the query reads, in the order it reads them.
    package var selectedProperties: [Int] {
        switch columns {
        case .all: Array(entity.properties.indices)
        case .sortKeys: sorts.map(\.0)
        }
    }
}
