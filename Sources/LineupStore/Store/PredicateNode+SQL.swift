extension PredicateNode {
    /// The condition in a store's SQL, appending its arguments to `arguments`. NULL handling
    /// matches `evaluate`: a row that a fetch reads from the store passes exactly when its values
    /// would pass in memory.
    package func sql(_ arguments: inout [StoreValue], _ dialect: SQLDialect) -> String {
        func parameter(_ value: StoreValue) -> String {
            arguments.append(value)
            return dialect.placeholder(arguments.count)
        }
        let never = dialect.literal(false)
        switch self {
        case let .constant(value):
            return dialect.literal(value)
        case let .compare(property, op, value):
            let column = quoted(property)
            if value.isNull {
                switch op {
                case .equal: return "\(column) IS NULL"
                case .notEqual: return "\(column) IS NOT NULL"
                default: return never
                }
            }
            if case let .real(number) = value, number.isNaN {
                // The stores keep a NaN as NULL; as in `evaluate`, every number differs from NaN
                // and no other comparison holds.
                return op == .notEqual ? "\(column) IS NOT NULL" : never
            }
            return "\(column) \(op.rawValue) \(parameter(value))"
        case let .isIn(property, candidates):
            let values = candidates.values
            let present = values.filter { !$0.isNull }
            var parts: [String] = []
            if !present.isEmpty {
                parts.append("\(quoted(property)) IN (\(present.map(parameter).joined(separator: ",")))")
            }
            if present.count != values.count { parts.append("\(quoted(property)) IS NULL") }
            return parts.isEmpty ? never : "(" + parts.joined(separator: " OR ") + ")"
        case let .contains(property, substring):
            // Not LIKE: its pattern ends at a NUL byte, so `"a\0b"` would match every row.
            // `lower` folds ASCII letters only, as `evaluate` does (PostgreSQL's in the "C"
            // collation); `instr` and `strpos` compare bytes.
            switch dialect {
            case .sqlite:
                return "instr(lower(\(quoted(property))), lower(\(parameter(.text(substring))))) > 0"
            case .postgres:
                // PostgreSQL's text holds no NUL: no row contains one.
                if substring.utf8.contains(0) { return never }
                return "strpos(lower(\(quoted(property)) COLLATE \"C\"), lower(\(parameter(.text(substring))) COLLATE \"C\")) > 0"
            }
        case let .and(lhs, rhs):
            return "(\(lhs.sql(&arguments, dialect)) AND \(rhs.sql(&arguments, dialect)))"
        case let .or(lhs, rhs):
            return "(\(lhs.sql(&arguments, dialect)) OR \(rhs.sql(&arguments, dialect)))"
        case let .not(operand):
            // Two-valued, like `evaluate`: NOT of a comparison with NULL is true.
            return "(NOT coalesce(\(operand.sql(&arguments, dialect)), \(never)))"
        case let .related(condition):
            // Correlated on the outer table by name: the subquery's own columns are unqualified,
            // and SQL resolves them in the subquery's table first.
            let destination = quoted(condition.destination)
            let reaches: String
            if let join = condition.join {
                // Each destination row once, however many pairs name it.
                let table = quoted(join.entityName)
                reaches =
                    "\(destination).pk IN (SELECT \(table).\(quoted(join.destinationColumn)) FROM \(table) WHERE \(table).\(quoted(join.sourceColumn)) = \(quoted(condition.source)).pk)"
            } else {
                reaches = "\(destination).\(quoted(condition.inverse)) = \(quoted(condition.source)).pk"
            }
            let count =
                "(SELECT COUNT(*) FROM \(destination) WHERE \(reaches) AND \(condition.predicate.sql(&arguments, dialect)))"
            return "(\(count) \(condition.comparison.rawValue) \(parameter(.integer(Int64(condition.count)))))"
        case let .primaryKeyIn(keys):
            // Integers only, written as literals: no statement grows a parameter per key.
            return keys.isEmpty ? never : "pk IN (\(keys.sorted().map(String.init).joined(separator: ",")))"
        }
    }
}
