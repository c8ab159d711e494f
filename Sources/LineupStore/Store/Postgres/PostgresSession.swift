public import Foundation
public import Logging
import NIOCore
import NIOPosix
import LineupLocking
import PostgresNIO

/// One connection to PostgreSQL, used synchronously: the contexts run on their own queues and
/// wait for the store, as they wait for SQLite. Each call blocks its thread on the connection's
/// future, never an event loop's (postgres-nio's loops are its own): never call it from a Swift
/// concurrency task's thread or an event loop.
///
/// Public for what lives beside the store in the same database (LineupJobs keeps its jobs
/// there); values go in and out as ``StoreValue``s.
///
/// One thread at a time uses a session (the pool hands it out, or the one context that owns it
/// calls it on its queue); `lock` makes that so even for a caller that forgets.
///
/// A connection that the server dropped (a restart, a failover, a proxy's idle timeout) is made
/// again at the next statement that begins no transaction's middle: the statement that met the
/// drop fails, and so does the rest of a transaction it cut, but the session itself lives on. A
/// store's writer and reserved reader are sessions held for the store's life, and without this a
/// restart of the server failed every later flush.
public final class PostgresSession: @unchecked Sendable {
    // @unchecked Sendable: `connection`, `isClosed` and `isInTransaction` are only touched under
    // `lock`; the rest is immutable (and `PostgresConnection` is Sendable).
    private var connection: PostgresConnection
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let lock = NSLock()
    /// Set by `close()`, under `lock`.
    private var isClosed = false
    /// Between a `transaction`'s BEGIN and its end, under `lock`: a connection lost there is not
    /// made again, since the statements after it would run outside the transaction.
    private var isInTransaction = false
    /// The database's URL without its password, for messages.
    public let location: String

    private init(
        connection: PostgresConnection, configuration: PostgresConnection.Configuration, logger: Logger, location: String
    ) {
        self.connection = connection
        self.configuration = configuration
        self.logger = logger
        self.location = location
    }

    static func connect(_ configuration: PostgresConnection.Configuration, location: String, logger: Logger) throws -> PostgresSession {
        PostgresSession(
            connection: try open(configuration, location: location, logger: logger), configuration: configuration,
            logger: logger, location: location)
    }

    private static func open(
        _ configuration: PostgresConnection.Configuration, location: String, logger: Logger
    ) throws -> PostgresConnection {
        do {
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                id: lastConnectionID.withLock { $0 += 1; return $0 }, logger: logger
            ).wait()
        } catch {
            throw StoreError(.postgres, "\(location): cannot connect: \(PostgresSession.describe(error))", underlying: error)
        }
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`).
    public static func connect(to url: URL, logger: Logger) throws -> PostgresSession {
        let (configuration, location) = try PostgresStore.configuration(from: url)
        return try connect(configuration, location: location, logger: logger)
    }

    /// Runs one statement and returns its rows as store values (`$1`, `$2`… are `arguments`).
    public func rows(_ sql: String, _ arguments: [StoreValue] = []) throws -> [[StoreValue]] {
        try query(sql, arguments).map { try $0.storeValues() }
    }

    /// Runs one statement and returns all its rows.
    @discardableResult
    func query(_ sql: String, _ arguments: [StoreValue] = []) throws -> [PostgresRow] {
        try run(sql, arguments).rows
    }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        lock.withLock { isInTransaction = true }
        defer { lock.withLock { isInTransaction = false } }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // The first error is the one to report; a failed rollback leaves the connection in a
            // state the next BEGIN reports.
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// postgres-nio requires a connection to be closed before it goes (it asserts so in debug
    /// builds): a session dropped without ``close()`` closes it here.
    deinit {
        close()
    }

    public func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            _ = try? connection.close().wait()
        }
    }

    /// Calls `onNotification` with the payload of each `NOTIFY` on `channel`, on one of
    /// postgres-nio's event loops (keep it short), until the session is closed.
    public func listen(to channel: String, onNotification: @escaping @Sendable (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in onNotification(notification.payload) }
        try execute("LISTEN \(channel)")
    }

    private func run(_ sql: String, _ arguments: [StoreValue]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { try bindings.append(storeValue: argument) }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        do {
            return try lock.withLock {
                // A query on a connection closed here never completes (postgres-nio drops it):
                // refuse it, as SQLite refuses a closed database.
                guard !isClosed else {
                    throw StoreError(.postgres, "\(location): the connection is closed")
                }
                if connection.isClosed {
                    guard !isInTransaction else {
                        throw StoreError(.postgres, "\(location): the server closed the connection in the middle of a transaction")
                    }
                    connection = try Self.open(configuration, location: location, logger: logger)
                    logger.warning("connected again: the server had closed the connection", metadata: ["database": "\(location)"])
                }
                return try answer(to: connection.query(query, logger: logger), on: connection)
            }
        } catch let error as PSQLError {
            throw StoreError(.postgres, "\(location): \(PostgresSession.describe(error))", underlying: error)
        }
    }

    /// How long a statement may stay unanswered once its connection reports closed.
    static let closedConnectionGrace = Duration.seconds(1)

    /// Waits for a statement's answer, which a closed connection may never give: postgres-nio
    /// writes a query to its channel without a promise, so a query that reaches a channel closed
    /// after `run` saw it open (the server dropped it in between) is lost, and `wait()` on it
    /// never returned, holding the session's lock (a test that dropped every connection of a
    /// daemon hung so, once in twenty runs). Once the connection reports closed, a statement
    /// still unanswered after ``closedConnectionGrace`` fails; a statement on an open connection
    /// is waited for however long it runs.
    private func answer<Value: Sendable>(
        to future: EventLoopFuture<Value>, on connection: PostgresConnection
    ) throws -> Value {
        let answered = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Value, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLock { $0 = result }
            answered.signal()
        }
        var giveUpAt: ContinuousClock.Instant?
        while answered.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
            guard connection.isClosed else { continue }
            let now = ContinuousClock.now
            if let giveUpAt, now >= giveUpAt {
                throw StoreError(.postgres, "\(location): the connection closed before the server answered the statement")
            }
            giveUpAt = giveUpAt ?? now + Self.closedConnectionGrace
        }
        return try outcome.withLock { $0! }.get()
    }

    /// The server's message and SQLSTATE, which `PSQLError`'s own description hides.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo {
            return [info[.message], info[.detail], info[.sqlState].map { "SQLSTATE \($0)" }].compactMap { $0 }.joined(separator: "; ")
        }
        return "\(error.code)"
    }

    /// The SQLSTATE of a statement's error, if PostgreSQL sent one (`23505`: a unique index
    /// holds the key already).
    static func sqlState(of error: (any Error)?) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The last connection's id, for postgres-nio's log lines.
    private static let lastConnectionID = Locked(0)
}

extension PostgresBindings {
    /// Binds a store value with the type of its case. A NaN is bound as NULL, as SQLite binds it,
    /// so that both stores keep and compare the same values.
    mutating func append(storeValue: StoreValue) throws {
        switch storeValue {
        case .null: appendNull()
        case let .integer(value): append(value)
        case let .real(value) where value.isNaN: appendNull()
        case let .real(value): append(value)
        case let .text(value): append(value)
        case let .blob(value): try append(value)
        }
    }
}

extension PostgresCell {
    /// The cell as a store value, by the column's type.
    func storeValue() throws -> StoreValue {
        guard bytes != nil else { return .null }
        switch dataType {
        case .int8, .int4, .int2: return .integer(try decode(Int64.self))
        case .float8, .float4: return .real(try decode(Double.self))
        case .text, .varchar, .name, .bpchar: return .text(try decode(String.self))
        case .bytea: return .blob(try decode(Data.self))
        case .bool: return .integer(try decode(Bool.self) ? 1 : 0)
        default:
            throw StoreError(.postgres, "column \(columnName) has PostgreSQL type \(dataType), which no store value holds")
        }
    }
}
