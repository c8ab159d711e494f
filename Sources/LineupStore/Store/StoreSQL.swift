/// The reads both stores run, as one text spelled for each (see ``SQLDialect``): the stores differ
/// only in how they run a statement and decode its rows.
package enum StoreSQL {
    /// The rows of `query` with `condition` (whose arguments are in `arguments` already): `pk`,
    /// `_version`, then `query.selectedProperties`, in the order of the sorts with NULL first and
    /// ties by `pk`; limit and offset are bound.
    package static func select(_ query: StoreQuery, where condition: String, _ arguments: inout [StoreValue], _ dialect: SQLDialect) -> String {
        let entity = query.entity
        var sql = "SELECT pk, _version"
        for index in query.selectedProperties { sql += ", " + quoted(entity.properties[index].name) }
        sql += " FROM \(quoted(entity.name)) WHERE \(condition) ORDER BY "
        for (index, ascending) in query.sorts {
            let column = quoted(entity.properties[index].name)
            switch dialect {
            case .sqlite:
                // Reading a whole table in order, walking an index costs a random page read per
                // row, while scanning and sorting reads each page once: the unary + keeps SQLite
                // from using the index then (measured with the export benchmark: 1.6 s against
                // 3.3–4.1 s for a million rows). With a condition or a limit, the index is what
                // makes the query cheap. SQLite sorts NULL first by itself.
                let scanAndSort = condition == dialect.literal(true) && query.limit == nil
                sql += (scanAndSort ? "+" : "") + column + (ascending ? " ASC, " : " DESC, ")
            case .postgres:
                sql += column + (ascending ? " ASC NULLS FIRST, " : " DESC NULLS LAST, ")
            }
        }
        sql += "pk ASC"
        // Bound, not written into the SQL: a statement is cached by its text, and a cache entry
        // for every page of a paged fetch would grow for as long as the daemon runs.
        if query.limit != nil || query.offset > 0 {
            let noLimit: StoreValue = dialect == .sqlite ? .integer(-1) : .null
            arguments.append(query.limit.map { .integer(Int64($0)) } ?? noLimit)
            let limit = dialect.placeholder(arguments.count)
            arguments.append(.integer(Int64(query.offset)))
            sql += " LIMIT \(limit) OFFSET \(dialect.placeholder(arguments.count))"
        }
        return sql
    }

    /// The number of rows of `entity` that match `predicate`.
    package static func count(
        of entity: EntityDescription, matching predicate: PredicateNode, _ arguments: inout [StoreValue], _ dialect: SQLDialect
    ) -> String {
        "SELECT count(*) FROM \(quoted(entity.name)) WHERE \(predicate.sql(&arguments, dialect))"
    }

    /// The rows of `destination` that match `predicate`, counted by the key their `inverse`
    /// column holds (rows with none are left out): key, count.
    package static func relatedCounts(
        of destination: EntityDescription, inverse: String, matching predicate: PredicateNode,
        _ arguments: inout [StoreValue], _ dialect: SQLDialect
    ) -> String {
        let column = quoted(inverse)
        return "SELECT \(column), count(*) FROM \(quoted(destination.name)) WHERE \(column) IS NOT NULL AND \(predicate.sql(&arguments, dialect)) GROUP BY \(column)"
    }
}
