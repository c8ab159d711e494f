public import Foundation
public import Logging
import LineupLocking

/// The stack of DESIGN §2, ready to use: the store, a private **writer** context that owns it,
/// the **main** context whose parent is the writer, and task contexts under the main one.
///
/// ```swift
/// let container = try PersistentContainer(url: storeURL, model: model, logger: logger)
/// let context = container.newTaskContext(name: "job-42")
/// try context.performAndWait {
///     let entry = JournalEntry(context: context)
///     entry.location = "Steamer Lane"
///     try context.save()              // into the main context
/// }
/// try container.flush()               // main → writer → disk
/// ```
public final class PersistentContainer: Sendable {
    /// The store under the writer context. Nothing above the writer knows which store it is.
    let store: any PersistentStore
    /// The private-queue context that owns the store: its save is the one write to disk (one
    /// transaction). Only the flush saves it; read through the main context or a task's.
    public let writerContext: ManagedObjectContext
    /// The context whose parent is the writer, on a serial queue of its own (never the process's
    /// main queue): task contexts save into it, and ``flush()`` moves its changes down.
    public let mainContext: ManagedObjectContext
    /// Whether a flush is under way: two flushes at once would have the second wait for the
    /// writer's disk write on the main context's queue, stalling everything that uses the main
    /// context meanwhile. The second waits for this to turn false instead (`Locked`'s wait, so
    /// the lock itself is held only to flip the flag, never across the flush).
    private let isFlushing = Locked(false)

    /// Opens the SQLite store at the file `url`, the embedded default, and builds the stack on it.
    /// (A PostgreSQL database, which several daemons on several hosts can share, is opened by
    /// LineupPostgres: `PersistentContainer(postgresURL:model:logger:)`.) Tasks do not change with
    /// the store.
    ///
    /// `maximumReaderCount` bounds the readers (SQLite's pooled connections) that task contexts
    /// read the store with (see ``readerCount(forConcurrentTasks:)``); the main context and the
    /// writer never wait for one.
    public convenience init(
        url: URL, model: ManagedObjectModel, logger: Logger,
        maximumReaderCount: Int = SQLiteStore.defaultReaderCount
    ) throws {
        guard url.isFileURL else {
            throw StoreError(
                .invalidURL,
                "\(url.scheme ?? url.absoluteString): not a file URL; a PostgreSQL store is opened with LineupPostgres's "
                    + "PersistentContainer(postgresURL:model:logger:)")
        }
        self.init(
            store: try SQLiteStore(url: url, model: model, logger: logger, maximumReaderCount: maximumReaderCount),
            logger: logger)
    }

    /// Builds the stack on an open store (LineupPostgres opens its own).
    package init(store: any PersistentStore, logger: Logger) {
        self.store = store
        writerContext = ManagedObjectContext(
            concurrencyType: .privateQueue, name: "writer", parent: .store(store), logger: logger)
        mainContext = ManagedObjectContext(
            concurrencyType: .mainQueue, name: "main", parent: .context(writerContext), logger: logger)
    }

    /// The pool's readers for `tasks` task contexts running at once: one each, so that no task
    /// waits for another's long read, and one more, so that a task whose enumeration holds a reader
    /// (on PostgreSQL; on SQLite an enumeration opens a connection of its own) and that reads again
    /// inside a batch always finds one; never fewer than the default.
    public static func readerCount(forConcurrentTasks tasks: Int) -> Int {
        max(SQLiteStore.defaultReaderCount, tasks + 1)
    }

    /// The identifier of the store (the first part of its objects' IDs).
    public var storeIdentifier: UUID { store.identifier }

    /// Where the store is, for messages: the SQLite file's path, or the PostgreSQL database's URL
    /// without its password.
    public var storeLocation: String { store.location }

    /// The number of rows of an entity on disk (saved data only); 0 for an entity the model lacks.
    public func rowCount(of entityName: String) throws -> Int {
        try store.rowCount(of: entityName)
    }

    /// Makes the committed data as compact on disk as the store can: SQLite writes its WAL back
    /// into the database file and truncates it. The daemon calls it before it exits.
    public func checkpoint() throws {
        try store.checkpoint()
    }

    /// Closes the store. Flush first: what the contexts hold is not written.
    public func close() throws {
        try store.close()
    }

    /// A private-queue child of the main context, e.g. for one job.
    public func newTaskContext(name: String) -> ManagedObjectContext {
        mainContext.newChildContext(concurrencyType: .privateQueue, name: name)
    }

    /// Saves main into the writer, then the writer into the store (one transaction). The main
    /// context is busy only for the first step, which moves changes in memory; the disk write
    /// happens on the writer's queue.
    ///
    /// The container never flushes by itself: whoever runs the stack decides when (the daemon's
    /// runner, on its interval, on signals and when the main context holds too many rows; see
    /// ``ManagedObjectContext/observeChildSaves(_:)``). Flushes run one at a time: a flush called
    /// during another waits for it, on the calling thread. When it returns, every change the
    /// main context held when it was called is on disk.
    @discardableResult
    public func flush() throws -> FlushReport {
        try flush(including: [])
    }

    /// A flush whose transaction also runs `statements`, so that what its rows mean to the caller
    /// commits with them (see ``FlushStatement``). They run after the rows, in the writer's one
    /// transaction, in their order, and run even when nothing else changed. If one fails or
    /// changes another number of rows than its `expectedRowCount`, the transaction is rolled
    /// back, rows included, and the flush throws (`.unexpectedRowCount` for a count); the writer
    /// keeps its changes for the next flush, as after any failed write.
    @discardableResult
    public func flush(including statements: [FlushStatement]) throws -> FlushReport {
        try flush(including: statements, routingOutbox: nil)
    }

    /// A flush whose transaction writes the messages that reach the writer (jobs enqueued with the
    /// data) as `routeOutbox`'s statements, rather than into the store's outbox: how the
    /// PostgreSQL daemon puts them straight into its jobs table. nil: into the outbox.
    @discardableResult
    package func flush(including statements: [FlushStatement], routingOutbox routeOutbox: OutboxRoute?) throws -> FlushReport {
        isFlushing.withLock(when: { !$0 }) { $0 = true }
        defer { isFlushing.withLock { $0 = false } }
        let started = ContinuousClock.now
        let moved = try mainContext.performAndWait {
            let count = mainContext.pendingChanges().count
            try mainContext.save()
            return count
        }
        let handedOver = ContinuousClock.now
        let (written, messages) = try writerContext.performAndWait {
            let counts = (writerContext.pendingChanges().count, writerContext.outbox.count)
            try writerContext.save(attaching: statements, routingOutbox: routeOutbox)
            return counts
        }
        return FlushReport(
            rowsFromMain: moved, rowsWritten: written, duration: ContinuousClock.now - started,
            mainContextDuration: handedOver - started, messagesWritten: messages)
    }

    /// After a flush whose write to the store met a conflict that the merge policies of the
    /// changes do not settle (`.error`), which every later flush would meet again: drops every
    /// change that the writer and the main context hold unwritten, as their `rollback()` does,
    /// and returns the rows dropped. nil, and nothing dropped, when the writer holds nothing
    /// unwritten: the flush failed before its write, as the main context's changes met the
    /// writer's, and the main context keeps them. The task contexts keep what they have not saved.
    @discardableResult
    package func discardUnwritableChanges() -> Int? {
        isFlushing.withLock(when: { !$0 }) { $0 = true }
        defer { isFlushing.withLock { $0 = false } }
        let written = writerContext.performAndWait { () -> Int? in
            let count = writerContext.pendingChanges().count
            guard count > 0 || !writerContext.outbox.isEmpty else { return nil }
            writerContext.rollback()
            return count
        }
        guard let written else { return nil }
        let held = mainContext.performAndWait {
            defer { mainContext.rollback() }
            return mainContext.pendingChanges().count
        }
        return written + held
    }

    /// After a flush that threw, its caller learned (from what the flush's own statements
    /// wrote) that the flush's transaction committed all the same: the connection was lost
    /// during or right after its COMMIT, as a database server's restart or failover may do. The
    /// writer takes what it holds as written, rather than write it again at the next flush
    /// (twice, or refused by the rows' own keys). What the main context held was handed to the
    /// writer by that flush already.
    ///
    /// - Returns: The rows taken as written.
    @discardableResult
    package func adoptFlushCommittedWithoutAnswer() -> Int {
        isFlushing.withLock(when: { !$0 }) { $0 = true }
        defer { isFlushing.withLock { $0 = false } }
        return writerContext.performAndWait { writerContext.adoptChangesCommittedWithoutAnswer() }
    }
}

/// What one flush did.
public struct FlushReport: Sendable {
    /// Changed rows moved from the main context into the writer.
    public let rowsFromMain: Int
    /// Changed rows written to disk (including any left in the writer by an earlier failed flush).
    public let rowsWritten: Int
    /// How long the flush took, from its start to the writer's commit.
    public let duration: Duration
    /// The part of `duration` spent moving the changes from the main context into the writer
    /// (the main context's queue is busy meanwhile); the rest is the writer's disk write.
    public let mainContextDuration: Duration
    /// Jobs enqueued with the data that the flush wrote (into the store's outbox, or where the
    /// flush routed them).
    public let messagesWritten: Int

    package init(
        rowsFromMain: Int, rowsWritten: Int, duration: Duration, mainContextDuration: Duration, messagesWritten: Int
    ) {
        self.rowsFromMain = rowsFromMain
        self.rowsWritten = rowsWritten
        self.duration = duration
        self.mainContextDuration = mainContextDuration
        self.messagesWritten = messagesWritten
    }
}
