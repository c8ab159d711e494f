import LineupStore

/// The connections a daemon on a database (``DaemonConfiguration/databaseURL``) opens to it, by
/// what holds them, and at most ``total`` together (``DaemonConfiguration/databaseConnections``).
///
/// Four are the daemon's whatever its size (``fixed``): the store's writer, the main context's
/// reader, the one that takes blocks of keys and row versions, and the one that listens for new
/// jobs (wherever ``DaemonConfiguration/listenDatabaseURL`` points it). The rest are pools that
/// open a connection on first need and wait for one when all are in use: the task contexts'
/// readers, and the jobs' connections (claims, acknowledgements' checks, heartbeats, intake).
public struct DatabaseConnectionBudget: Sendable, Hashable {
    /// The store's writer, the main context's reader, the key blocks' connection, the listener.
    public static let fixed = 4
    /// The jobs' connections when the budget has room for them: a heartbeat then never waits
    /// behind a claim or a large intake.
    public static let preferredJobConnections = 2

    /// The most connections the task contexts read the store with.
    public let storeReaders: Int
    /// The most connections the jobs use (``fixed`` aside).
    public let jobConnections: Int

    /// The most connections the daemon opens to the database.
    public var total: Int { Self.fixed + storeReaders + jobConnections }

    /// The fewest readers for `tasks` jobs at once: one each and one more, since a task that
    /// enumerates holds a reader while it reads again inside a batch; with fewer, every task
    /// could wait for another's reader for good.
    public static func minimumStoreReaders(forConcurrentTasks tasks: Int) -> Int {
        tasks + 1
    }

    /// The fewest connections a daemon running `tasks` jobs at once can make do with:
    /// ``fixed``, ``minimumStoreReaders(forConcurrentTasks:)``, and one for the jobs.
    public static func minimum(forConcurrentTasks tasks: Int) -> Int {
        fixed + minimumStoreReaders(forConcurrentTasks: tasks) + 1
    }

    /// What a daemon running `tasks` jobs at once opens at most, within `limit` connections
    /// (nil: without a limit of its own, the readers that `PersistentContainer` gives that many
    /// tasks and ``preferredJobConnections``). A limit under ``minimum(forConcurrentTasks:)`` is
    /// ``DaemonConfiguration/validate()``'s to refuse; here it gets the minimum.
    public init(forConcurrentTasks tasks: Int, limit: Int?) {
        let readers = PersistentContainer.readerCount(forConcurrentTasks: tasks)
        guard let limit else {
            self.storeReaders = readers
            self.jobConnections = Self.preferredJobConnections
            return
        }
        let shared = max(limit, Self.minimum(forConcurrentTasks: tasks)) - Self.fixed
        // The jobs take their second connection only once the readers have their minimum.
        let jobs = shared - Self.preferredJobConnections >= Self.minimumStoreReaders(forConcurrentTasks: tasks)
            ? Self.preferredJobConnections : 1
        self.jobConnections = jobs
        self.storeReaders = min(readers, shared - jobs)
    }
}
