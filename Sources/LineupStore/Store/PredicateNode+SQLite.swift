extension PredicateNode {
    /// The condition in SQLite's SQL, with its arguments. NULL handling matches `evaluate`: a row
    /// that a fetch reads from the store passes exactly when its values would pass in memory.
    func sql(_ arguments: inout [StoreValue]) -> String {
        switch self {
        case let .constant(value):
            return value ? "1" : "0"
        case let .compare(property, op, value):
            let column = quoted(property)
            if value.isNull {
                switch op {
                case .equal: return "\(column) IS NULL"
                case .notEqual: return "\(column) IS NOT NULL"
                default: return "0"
                }
            }
            if case let .real(number) = value, number.isNaN {
                // SQLite binds a NaN as NULL; as in `evaluate`, every number differs from NaN
                // and no other comparison holds.
                return op == .notEqual ? "\(column) IS NOT NULL" : "0"
            }
            arguments.append(value)
            return "\(column) \(op.rawValue) ?"
        case let .isIn(property, candidates):
            let values = candidates.values
            let present = values.filter { !$0.isNull }
            var parts: [String] = []
            if !present.isEmpty {
                arguments += present
                parts.append("\(quoted(property)) IN (\(Array(repeating: "?", count: present.count).joined(separator: ",")))")
            }
            if present.count != values.count { parts.append("\(quoted(property)) IS NULL") }
            return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
        case let .contains(property, substring):
            // Not LIKE: its pattern ends at a NUL byte, so `"a\0b"` would match every row.
            // `lower` folds ASCII letters only, as `evaluate` does; `instr` compares bytes.
            arguments.append(.text(substring))
            return "instr(lower(\(quoted(property))), lower(?)) > 0"
        case let .and(lhs, rhs):
            return "(\(lhs.sql(&arguments)) AND \(rhs.sql(&arguments)))"
        case let .or(lhs, rhs):
            return "(\(lhs.sql(&arguments)) OR \(rhs.sql(&arguments)))"
        case let .not(operand):
            // Two-valued, like `evaluate`: NOT of a comparison with NULL is true.
            return "(NOT coalesce(\(operand.sql(&arguments)), 0))"
        case let .related(condition):
            // Correlated on the outer table by name: the subquery's own columns are unqualified,
            // and SQL resolves them in the subquery's table first.
            let destination = quoted(condition.destination)
            let count =
                "(SELECT COUNT(*) FROM \(destination) WHERE \(destination).\(quoted(condition.inverse)) = \(quoted(condition.source)).pk AND \(condition.predicate.sql(&arguments)))"
            arguments.append(.integer(Int64(condition.count)))
            return "(\(count) \(condition.comparison.rawValue) ?)"
        case let .primaryKeyIn(keys):
            // Integers only, written as literals: no statement grows a parameter per key.
            return keys.isEmpty ? "0" : "pk IN (\(keys.sorted().map(String.init).joined(separator: ",")))"
        }
    }
}
