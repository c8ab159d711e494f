extension AggregateQuery {
    /// The query in a store's SQL, appending its arguments to `arguments`. Dates are stored as
    /// seconds since 1970. Results have SQLite's types on both stores: a count or a sum of
    /// integers is an integer, an average a real.
    package func sql(_ arguments: inout [StoreValue], _ dialect: SQLDialect) -> String {
        let condition = predicate.sql(&arguments, dialect)
        let columns = groups.map { "\(expression(for: $0.grouping, dialect)) AS \(quoted($0.name))" }
            + aggregates.map { "\(expression(for: $0.function, dialect)) AS \(quoted($0.name))" }
        var statement = "SELECT \(columns.joined(separator: ", ")) FROM \(quoted(entity.name)) WHERE \(condition)"
        if !groups.isEmpty {
            let keys = groups.map { quoted($0.name) }.joined(separator: ", ")
            // SQLite orders NULL first; PostgreSQL is told to.
            let order = groups.map { quoted($0.name) + (dialect == .postgres ? " NULLS FIRST" : "") }
            statement += " GROUP BY \(keys) ORDER BY \(order.joined(separator: ", "))"
        }
        return statement
    }

    private func expression(for grouping: Grouping, _ dialect: SQLDialect) -> String {
        switch (grouping, dialect) {
        case let (.value(property), _):
            quoted(property)
        case let (.day(property), .sqlite):
            "date(\(quoted(property)), 'unixepoch')"
        case let (.day(property), .postgres):
            "to_char(to_timestamp(\(quoted(property))) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
        case let (.month(property), .sqlite):
            "CAST(strftime('%m', \(quoted(property)), 'unixepoch') AS INTEGER)"
        case let (.month(property), .postgres):
            "CAST(extract(month FROM to_timestamp(\(quoted(property))) AT TIME ZONE 'UTC') AS BIGINT)"
        }
    }

    /// A text column's value as SQLite reads it for arithmetic: the number it begins with after
    /// any spaces ("1.5 ft" is 1.5, "1e1" is 10), 0 when it begins with none, NULL for NULL.
    private static func leadingNumber(of column: String) -> String {
        "CASE WHEN \(column) IS NULL THEN NULL ELSE COALESCE(CAST(substring(\(column) FROM "
            + #"'^\s*([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)') AS DOUBLE PRECISION), 0) END"#
    }

    /// The type of the entity's property `property`; nil when it has none of that name.
    private func attributeType(of property: String) -> AttributeType? {
        entity.index(ofProperty: property).map { entity.properties[$0].type }
    }

    private func expression(for function: Function, _ dialect: SQLDialect) -> String {
        switch function {
        case .countRows:
            return "count(*)"
        case let .count(property):
            return "count(\(quoted(property)))"
        case let .average(property):
            guard dialect == .postgres else { return "avg(\(quoted(property)))" }
            // PostgreSQL's avg of integers is a numeric, which has no place among store values,
            // and it has no avg of text, which SQLite averages by each string's leading number.
            let operand = attributeType(of: property) == .string ? Self.leadingNumber(of: quoted(property)) : quoted(property)
            return "CAST(avg(\(operand)) AS DOUBLE PRECISION)"
        case let .minimum(property):
            return "min(\(quoted(property)))"
        case let .maximum(property):
            return "max(\(quoted(property)))"
        case let .sum(property):
            // PostgreSQL's sum of BIGINT is a numeric: back to BIGINT, as SQLite sums integers.
            guard dialect == .postgres, let type = attributeType(of: property) else {
                return "sum(\(quoted(property)))"
            }
            switch type {
            case .integer, .boolean, .reference: return "CAST(sum(\(quoted(property))) AS BIGINT)"
            default: return "sum(\(quoted(property)))"
            }
        }
    }
}
