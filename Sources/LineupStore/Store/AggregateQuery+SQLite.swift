extension AggregateQuery {
    /// The query in SQLite's SQL, with its arguments. Dates are stored as seconds since 1970.
    func sql(_ arguments: inout [StoreValue]) -> String {
        let condition = predicate.sql(&arguments)
        let columns = groups.map { "\($0.grouping.sql) AS \(quoted($0.name))" }
            + aggregates.map { "\($0.function.sql) AS \(quoted($0.name))" }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(quoted(entity.name)) WHERE \(condition)"
        if !groups.isEmpty {
            let keys = groups.map { quoted($0.name) }.joined(separator: ", ")
            sql += " GROUP BY \(keys) ORDER BY \(keys)"
        }
        return sql
    }
}

extension AggregateQuery.Grouping {
    fileprivate var sql: String {
        switch self {
        case let .value(property): quoted(property)
        case let .day(property): "date(\(quoted(property)), 'unixepoch')"
        case let .month(property): "CAST(strftime('%m', \(quoted(property)), 'unixepoch') AS INTEGER)"
        }
    }
}

extension AggregateQuery.Function {
    fileprivate var sql: String {
        switch self {
        case .countRows: "count(*)"
        case let .count(property): "count(\(quoted(property)))"
        case let .average(property): "avg(\(quoted(property)))"
        case let .minimum(property): "min(\(quoted(property)))"
        case let .maximum(property): "max(\(quoted(property)))"
        case let .sum(property): "sum(\(quoted(property)))"
        }
    }
}
