package import Foundation
package import LineupStore
package import Logging
import NIOCore
import NIOPosix
import LineupLocking
import PostgresNIO

/// One connection to PostgreSQL, used synchronously: the contexts run on their own queues and
/// wait for the store, as they wait for SQLite. The statements run on postgres-nio's event loops;
/// each call sleeps its thread until the loop answers (`Locked`'s wait, woken by the answer: no
/// polling), so never call it from a Swift concurrency task's thread or an event loop.
///
/// `package`, not public: for what lives beside the store in the same database (the jobs table,
/// the schema migrations, `lineup migrate`, the benchmark's baseline); values go in and out as
/// ``StoreValue``s. Users reach PostgreSQL through the store and ``JobDatabase``.
///
/// One thread at a time uses a session (the pool hands it out, or the one context that owns it
/// calls it on its queue); a caller that forgets waits for the statement under way.
///
/// A connection that the server dropped (a restart, a failover, a proxy's idle timeout) is made
/// again at the next statement that begins no transaction's middle: the statement that met the
/// drop fails, and so does the rest of a transaction it cut, but the session itself lives on. A
/// store's writer and reserved reader are sessions held for the store's life, and without this a
/// restart of the server failed every later flush.
package final class PostgresSession: Sendable {
    private struct State {
        var link: Link
        /// Set by `close()`.
        var isClosed = false
        /// Between a `transaction`'s BEGIN and its end: a connection lost there is not made again,
        /// since the statements after it would run outside the transaction.
        var isInTransaction = false
        /// A statement, a reconnection or the closing is under way; the next waits for it. (A
        /// flag rather than the lock held across the statement: `Locked`'s lock is never held
        /// while a thread waits.)
        var isBusy = false
    }

    private let state: Locked<State>
    /// Opens the connection again after a drop, through the same hosts.
    private let connector: PostgresConnector
    private let logger: Logger
    /// The database's URL without its password, for messages.
    package let location: String

    private init(link: Link, connector: PostgresConnector, logger: Logger, location: String) {
        self.state = Locked(State(link: link))
        self.connector = connector
        self.logger = logger
        self.location = location
    }

    static func connect(_ connector: PostgresConnector, location: String, logger: Logger) throws -> PostgresSession {
        PostgresSession(
            link: try open(connector, location: location, logger: logger), connector: connector,
            logger: logger, location: location)
    }

    private static func open(
        _ connector: PostgresConnector, location: String, logger: Logger
    ) throws -> Link {
        do {
            return Link(
                try answer(
                    to: connector.connect(
                        on: MultiThreadedEventLoopGroup.singleton.next(),
                        id: lastConnectionID.withLock { $0 += 1; return $0 }, logger: logger)))
        } catch {
            throw StoreError(
                .postgres, "\(location): cannot connect: \(PostgresSession.describe(error))", underlying: error,
                isTransient: isTransient(error))
        }
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
    /// libpq's options, environment variables and password file: see `PostgresConnectionSettings`).
    package static func connect(to url: URL, logger: Logger) throws -> PostgresSession {
        let (connector, location) = try PostgresStore.configuration(from: url, logger: logger)
        return try connect(connector, location: location, logger: logger)
    }

    /// Runs one statement and returns its rows as store values (`$1`, `$2`… are `arguments`).
    package func rows(_ sql: String, _ arguments: [StoreValue] = []) throws -> [[StoreValue]] {
        try query(sql, arguments).map { try $0.storeValues() }
    }

    /// Runs one statement and returns all its rows.
    @discardableResult
    func query(_ sql: String, _ arguments: [StoreValue] = []) throws -> [PostgresRow] {
        try run(sql, arguments).rows
    }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    package func execute(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        state.withLock { $0.isInTransaction = true }
        defer { state.withLock { $0.isInTransaction = false } }
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

    /// Closes the connection, once the call under way (if any) has ended. Later calls throw;
    /// closing again does nothing.
    package func close() {
        let link = state.withLock(when: { !$0.isBusy }) { state -> Link? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            return state.link
        }
        guard let link else { return }
        _ = try? Self.answer(to: link.connection.close())
    }

    /// Whether the session is open and its connection is still up: false once the server
    /// dropped it (the next statement would connect again, but what the connection alone held,
    /// its `LISTEN`s, is gone with it).
    package var isConnected: Bool {
        state.withLock { !$0.isClosed && !$0.link.connection.isClosed }
    }

    /// Calls `onNotification` with the payload of each `NOTIFY` on `channel`, on one of
    /// postgres-nio's event loops (keep it short), until the session is closed.
    package func listen(to channel: String, onNotification: @escaping @Sendable (String) -> Void) throws {
        state.withLock { $0.link }.connection.addListener(channel: channel) { _, notification in
            onNotification(notification.payload)
        }
        try execute("LISTEN \(channel)")
    }

    private func run(_ sql: String, _ arguments: [StoreValue]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { try bindings.append(storeValue: argument) }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let location = self.location
        let (taken, isInTransaction) = try state.withLock(when: { !$0.isBusy }) { state in
            // A query on a connection closed here never completes (postgres-nio drops it):
            // refuse it, as SQLite refuses a closed database.
            guard !state.isClosed else {
                throw StoreError(.postgres, "\(location): the connection is closed")
            }
            state.isBusy = true
            return (state.link, state.isInTransaction)
        }
        defer { state.withLock { $0.isBusy = false } }
        var link = taken
        if link.connection.isClosed {
            guard !isInTransaction else {
                throw StoreError(
                    .postgres, "\(location): the server closed the connection in the middle of a transaction", isTransient: true)
            }
            link = try Self.open(connector, location: location, logger: logger)
            state.withLock { $0.link = link }
            logger.warning("connected again: the server had closed the connection", metadata: ["database": "\(location)"])
        }
        do {
            return try link.answer(to: link.connection.query(query, logger: logger), location: location)
        } catch let error as PSQLError {
            throw StoreError(
                .postgres, "\(location): \(PostgresSession.describe(error))", underlying: error, isTransient: Self.isTransient(error))
        }
    }

    /// How long a statement may stay unanswered once its connection reports closed.
    static let closedConnectionGrace = TimeAmount.seconds(1)

    /// The value of `future`, for a synchronous caller: the thread sleeps until the event loop
    /// completes it. The one way this module waits for NIO (in place of `EventLoopFuture.wait()`,
    /// which would be a second waiting mechanism beside `Locked`'s).
    fileprivate static func answer<Value: Sendable>(
        to future: EventLoopFuture<Value>, whileWaiting: (Locked<Result<Value, any Error>?>) -> Void = { _ in }
    ) throws -> Value {
        // On the loop that completes the future, the wait would never end.
        precondition(!future.eventLoop.inEventLoop, "a PostgreSQL session is used on one of its event loops")
        let outcome = Locked<Result<Value, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLock { if $0 == nil { $0 = result } }
        }
        whileWaiting(outcome)
        return try outcome.withLock(when: { $0 != nil }) { $0! }.get()
    }

    /// The server's message and SQLSTATE, which `PSQLError`'s own description hides.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo {
            return [info[.message], info[.detail], info[.sqlState].map { "SQLSTATE \($0)" }].compactMap { $0 }.joined(separator: "; ")
        }
        return "\(error.code)"
    }

    /// Whether `error`, met while connecting or running a statement, may go away by itself (see
    /// ``LineupStore/StoreError/isTransient``): a connection that could not be made or was lost,
    /// and the server's words for "not now" — SQLSTATE class 08 (connection exception), 57P01–
    /// 57P03 (shutting down, crashed, starting up), 53300 (too many connections), 40001 and 40P01
    /// (serialization failure, deadlock). A statement the server refused for what it says (a
    /// syntax error, a constraint, a password) is not: it fails the same way again.
    static func isTransient(_ error: any Error) -> Bool {
        if let failure = error as? PostgresConnectionFailure { return failure.isTransient }
        // Not the protocol's: the socket's (refused, reset, timed out).
        guard let error = error as? PSQLError else { return true }
        switch error.code {
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300", "40001", "40P01"].contains(state)
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
            return true
        default:
            return false
        }
    }

    /// The SQLSTATE of a statement's error, if PostgreSQL sent one (`23505`: a unique index
    /// holds the key already).
    static func sqlState(of error: (any Error)?) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The last connection's id, for postgres-nio's log lines.
    private static let lastConnectionID = Locked(0)
}

/// One connection to the server, and the event that ends a statement its closing left unanswered.
///
/// postgres-nio writes a query to its channel without a promise, so a query that reaches a
/// channel closed after `run` saw it open (the server dropped it in between) is never answered
/// (a test that dropped every connection of a daemon hung so, once in twenty runs). So the close
/// of the connection arms a timer on its event loop: a statement still unanswered
/// ``PostgresSession/closedConnectionGrace`` after it fails, and so does any statement sent on
/// the connection after that. A statement on an open connection is waited for however long it
/// runs.
private final class Link: Sendable {
    let connection: PostgresConnection

    private struct Watch {
        /// Fails the statement under way, if one is.
        var giveUp: (@Sendable () -> Void)?
        var isPastGrace = false
    }

    private let watch = Locked(Watch())

    init(_ connection: PostgresConnection) {
        self.connection = connection
        // Registered once per connection, not per statement: a callback on `closeFuture` stays
        // until the connection closes, and a store's writer runs millions of statements on one.
        let watch = self.watch
        connection.closeFuture.whenComplete { _ in
            connection.eventLoop.scheduleTask(in: PostgresSession.closedConnectionGrace) { Self.endGrace(watch) }
        }
    }

    /// The answer to a statement sent on this connection.
    func answer<Value: Sendable>(to future: EventLoopFuture<Value>, location: String) throws -> Value {
        defer { watch.withLock { $0.giveUp = nil } }
        return try PostgresSession.answer(to: future) { outcome in
            let giveUp: @Sendable () -> Void = {
                outcome.withLock {
                    if $0 == nil {
                        $0 = .failure(
                            StoreError(
                                .postgres, "\(location): the connection closed before the server answered the statement",
                                isTransient: true))
                    }
                }
            }
            let isPastGrace = watch.withLock { watch in
                watch.giveUp = giveUp
                return watch.isPastGrace
            }
            if isPastGrace { giveUp() }
        }
    }

    private static func endGrace(_ watch: Locked<Watch>) {
        let giveUp = watch.withLock { watch in
            watch.isPastGrace = true
            return watch.giveUp
        }
        giveUp?()
    }
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
