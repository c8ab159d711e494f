/// Where the SQL of the stores' engines differs, for the SQL that both stores compile from the
/// same values (predicates, aggregates): one compiler, two spellings.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The placeholder of the `number`th argument (counted from 1).
    func placeholder(_ number: Int) -> String {
        switch self {
        case .sqlite: "?"
        case .postgres: "$\(number)"
        }
    }

    func literal(_ value: Bool) -> String {
        switch self {
        case .sqlite: value ? "1" : "0"
        case .postgres: value ? "TRUE" : "FALSE"
        }
    }
}
