/// One step of a schema's history: the SQL that takes a database from `version - 1` to
/// `version`, in one dialect.
///
/// A released migration never changes: a database that one Lineup migrated must be the same as
/// one that the next Lineup creates, so a change to a schema is always a new migration, and its
/// SQL spells out its values (block sizes, state names) rather than reading today's constants.
package struct SchemaMigration: Sendable, Hashable {
    /// Its place in the order: 1 for the first, one more than the one before.
    package let version: Int
    /// What it does, in a few words, for `lineup migrate status` and the logs.
    package let name: String
    /// Its statements, run in order in the transaction that also records its version.
    package let statements: [String]

    package init(version: Int, name: String, statements: [String]) {
        precondition(version > 0, "schema versions count from 1")
        precondition(!statements.isEmpty, "migration \(version) (\(name)) has no statement")
        self.version = version
        self.name = name
        self.statements = statements
    }
}
