/// The connection a context reads the store with.
///
/// Tasks' long reads (an export enumerating a table) hold a connection for as long as they run:
/// one of the pool's readers on PostgreSQL, where there may be more of them than readers, and on
/// SQLite a connection of their own (see `pooledLongRead`). The contexts that others wait for
/// synchronously must never wait behind them: every task's save waits for the main context, which
/// reads the store when it checks a save (uniqueness, versions), and every flush waits for the
/// main context and the writer (DESIGN §2: synchronous waits only go upward). So each level of
/// the stack reads with a connection that no level below it can hold.
package enum StoreReader: Sendable, Equatable {
    /// One of the pool's readers: task contexts, and every context under them. Waits when other
    /// tasks hold every reader (see `PersistentContainer.readerCount(forConcurrentTasks:)`).
    case pooled
    /// The store's reserved read-only connection, used by the main context (the writer's
    /// children) alone, one short read at a time: it is never held while a caller's code runs.
    case reserved
    /// The writer connection, for the writer context's reads: they run on the writer's queue,
    /// between its writes, and wait only for the writer's own work.
    case writer
    /// A read-only connection opened for this read alone, closed after it.
    case dedicated
    /// A task's read that runs the caller's code while its cursor is open (an enumeration). On
    /// PostgreSQL, one of the pool's readers, as for `.pooled`: a session's cursor stays open
    /// between statements, and a read inside a batch takes another pooled reader. On SQLite, a
    /// connection of its own, as for `.dedicated`: the cursor runs inside GRDB's read closure on
    /// the caller's thread, and GRDB refuses a read of the pool from inside a read of the pool,
    /// which a batch's code may do.
    case pooledLongRead

    /// The connection for a read that runs the caller's code while its cursor is open (an
    /// enumeration). The main context and the writer open a connection of their own then: on
    /// theirs, a read inside a batch would wait for the cursor that waits for the batch.
    var forLongReads: StoreReader {
        self == .pooled ? .pooledLongRead : .dedicated
    }
}
