/// A statement that a flush writes in the same transaction as its rows (see
/// ``PersistentContainer/flush(including:)``), so that what the rows mean to the caller (the jobs
/// they finish, say, in a table of the same database) commits exactly when they do: both, or
/// neither.
///
/// ```swift
/// try container.flush(including: [
///     FlushStatement("UPDATE jobs SET done = true WHERE id = $1 AND owner = $2",
///                    arguments: [.integer(jobID), .text(owner)], expectedRowCount: 1),
/// ])
/// ```
///
/// The SQL is in the store's own dialect, which the stack does not translate: `?` placeholders
/// for SQLite, `$1`, `$2`, … for PostgreSQL. One SQL statement each: neither store runs several
/// from one string.
public struct FlushStatement: Sendable, Hashable {
    /// One SQL statement in the store's dialect (`?` placeholders for SQLite, `$1`, `$2`, … for
    /// PostgreSQL).
    public let sql: String
    /// The values bound to the placeholders, in order; empty by default.
    public let arguments: [StoreValue]
    /// The number of rows the statement must change; any other count rolls the whole flush back
    /// (a fence: the rows are written only while the caller still holds what it claims to).
    /// nil: any.
    public let expectedRowCount: Int?

    /// Makes a statement; with `expectedRowCount`, any other count of changed rows rolls the flush
    /// back.
    public init(_ sql: String, arguments: [StoreValue] = [], expectedRowCount: Int? = nil) {
        self.sql = sql
        self.arguments = arguments
        self.expectedRowCount = expectedRowCount
    }

    /// The start of the SQL, for messages: a statement may list thousands of keys.
    var excerpt: String {
        sql.count > 200 ? String(sql.prefix(200)) + "…" : sql
    }

    /// Throws unless the statement changed the number of rows it expects.
    package func check(changedRowCount count: Int) throws {
        guard let expectedRowCount, count != expectedRowCount else { return }
        throw StoreError(
            .unexpectedRowCount,
            "flush statement `\(excerpt)` changed \(count) \(count == 1 ? "row" : "rows"), not the \(expectedRowCount) it expects; the flush was rolled back")
    }

    /// A store's error from running the statement, naming it; the same code and underlying
    /// error, so that a unique index's refusal is still recognised as one.
    package func failure(_ error: StoreError) -> StoreError {
        StoreError(
            error.code, "flush statement `\(excerpt)` failed: \(error.message)",
            conflicts: error.conflicts, underlying: error.underlying)
    }
}
