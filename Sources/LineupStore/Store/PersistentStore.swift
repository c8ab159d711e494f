package import Foundation

/// What the writer context talks to: a database that holds the model's rows, with their versions.
///
/// The contexts above the writer never see which store they have: they hand the store whole
/// queries (predicates, sorts, aggregates) as values and compile nothing themselves, so that each
/// store compiles them into its own SQL. ``SQLiteStore`` is the embedded default.
///
/// A store keeps these promises, which the contexts build on:
/// - **One change set, one transaction.** ``save(_:policy:attaching:)`` checks the version of
///   every updated and deleted row against the database, settles each conflict by the merge
///   policy that the context which made the change set, else by `policy` (the writer's; see
///   `ConflictResolution`), writes the rows, then runs the attached statements, and commits
///   all of it or nothing.
/// - **Unique keys and versions.** ``reservePrimaryKeys()`` and ``nextStamp()`` never hand out a
///   value twice, across restarts, and across every process that writes the same database.
/// - **Snapshots.** A read sees one committed state of the database, never part of a save.
/// - **Readers by level.** A read names the level of the stack it serves (``StoreReader``): a
///   level never waits for a connection that a level below it can hold.
/// - **Refusal before harm.** Opening refuses a database that Lineup did not create, or that a
///   newer model wrote, without changing it; adding an entity or an optional property migrates
///   in place.
///
/// Its requirements take the stack's own types, which are `package`: the SQLite store lives in this
/// module and the PostgreSQL store in LineupPostgres, and users pick one when they build a
/// ``PersistentContainer``.
package protocol PersistentStore: AnyObject, Sendable {
    /// The store's identity, the first part of its objects' IDs.
    var identifier: UUID { get }
    var model: ManagedObjectModel { get }
    /// Where the store is, for messages (a path, or a database URL without its password).
    var location: String { get }
    /// The SQL its statements are spelled in (the outbox's, ``OutboxSQL``, among them).
    var dialect: SQLDialect { get }

    /// A block of primary keys for one context's inserts. Keys of a block that is not used up
    /// are simply never used: keys only need to be unique. Cannot fail, since inserting an object
    /// cannot: a store whose keys come from a server fetches blocks ahead of need.
    func reservePrimaryKeys() -> Range<Int64>
    /// A new row version, unique in this store.
    func nextStamp() -> Int64

    /// Runs a fetch with one cursor on one snapshot, handing out the rows in batches of at most
    /// `batchSize`. A `body` that runs its caller's code needs `reader.forLongReads`.
    func enumerateRows(
        _ query: StoreQuery, batchSize: Int, on reader: StoreReader,
        _ body: ([(ObjectID, RowSnapshot)]) throws -> Void) throws
    /// The saved rows of `ids`; missing rows are absent.
    func fetchRows(ids: [ObjectID], entity: EntityDescription, on reader: StoreReader) throws -> [ObjectID: RowSnapshot]
    /// Saved rows whose `indexes` properties equal one of `keys`, with those values. `keys` holds
    /// the keys one after the other, `indexes.count` values each.
    func fetchKeys(
        _ keys: [StoreValue], of indexes: [Int], entity: EntityDescription, on reader: StoreReader
    ) throws -> [(ObjectID, [StoreValue])]
    /// The number of rows of `destination` that match `predicate`, by the key their `inverse`
    /// column holds (rows with none are left out).
    func relatedCounts(
        of destination: EntityDescription, inverse: String, matching predicate: PredicateNode, on reader: StoreReader
    ) throws -> [Int64: Int]
    /// The number of saved rows of `entity` that match `predicate`.
    func count(entity: EntityDescription, matching predicate: PredicateNode, on reader: StoreReader) throws -> Int
    /// The number of saved rows of an entity; 0 for an entity the model lacks.
    func rowCount(of entityName: String) throws -> Int
    /// A grouped aggregate over the saved rows, one dictionary per group, ordered by the groups.
    func aggregate(_ query: AggregateQuery, on reader: StoreReader) throws -> [[String: StoreValue]]

    /// Writes a change set as one transaction (see the promises above), then runs `statements`
    /// in it, in their order, after the rows. A statement that fails, or that changes another
    /// number of rows than it expects (`.unexpectedRowCount`), rolls the whole transaction back
    /// and is named by the error. An empty change set with statements is a transaction of the
    /// statements alone. Returns the exceptions: rows that the merge policy changed or removed
    /// (see ``AcceptedChange``).
    func save(_ changes: ChangeSet, policy: MergePolicy, attaching statements: [FlushStatement]) throws -> [ObjectID: AcceptedChange]
    /// Deletes (when `assignments` is nil) or updates the rows of `entity` that match `predicate`,
    /// as one transaction, without loading them. `watched` are the keys that some context holds:
    /// the outcome says which of them the statement touched, and their new rows.
    func executeBatch(
        entity: EntityDescription, matching predicate: PredicateNode,
        assignments: [(property: Int, value: StoreValue)]?, watched: [ObjectID], collectingIDs: Bool
    ) throws -> BatchOutcome
    /// The oldest messages of `channel` in the store's outbox (`lineup_outbox`), at most `limit`,
    /// as committed: what flushes wrote and no reader removed yet.
    func outboxEntries(on channel: String, limit: Int, reader: StoreReader) throws -> [OutboxEntry]
    /// Whether a save failed because a unique index of the database already holds a key: the
    /// writer then names the rows, as the contexts' own check would.
    func isUniqueKeyViolation(_ error: StoreError) -> Bool

    /// Makes what is committed as compact on disk as the store can (SQLite writes its WAL back
    /// into the database file); the daemon calls it before it exits.
    func checkpoint() throws
    func close() throws
}

extension PersistentStore {
    /// The saved rows that match `query`, all at once.
    func fetchRows(_ query: StoreQuery, on reader: StoreReader) throws -> [(ObjectID, RowSnapshot)] {
        var rows: [(ObjectID, RowSnapshot)] = []
        try enumerateRows(query, batchSize: .max, on: reader) { rows += $0 }
        return rows
    }
}
