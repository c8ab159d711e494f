import Foundation

/// The connections that task contexts read with: at most `capacity`, opened on first need. A read
/// waits while every one is in use, as a task waits for one of SQLite's pooled readers. A
/// connection whose call failed is closed, not reused: the next use connects afresh, so a pool
/// outlives a server's restart.
public final class PostgresSessionPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `opened` are only touched under `condition`'s lock; the
    // rest is immutable.
    private let condition = NSCondition()
    private var idle: [PostgresSession] = []
    private var opened = 0
    private let capacity: Int
    private let connect: @Sendable () throws -> PostgresSession

    public init(capacity: Int, connect: @escaping @Sendable () throws -> PostgresSession) {
        precondition(capacity > 0, "a pool needs at least one connection")
        self.capacity = capacity
        self.connect = connect
    }

    /// Runs `body` with a connection that no other thread uses meanwhile.
    public func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let session = try checkOut()
        do {
            let result = try body(session)
            checkIn(session)
            return result
        } catch {
            // A connection that failed may be broken: close it rather than hand it out again.
            discard(session)
            throw error
        }
    }

    public func close() {
        condition.lock()
        let sessions = idle
        idle = []
        condition.unlock()
        for session in sessions { session.close() }
    }

    private func checkOut() throws -> PostgresSession {
        condition.lock()
        while idle.isEmpty && opened >= capacity { condition.wait() }
        if let session = idle.popLast() {
            condition.unlock()
            return session
        }
        opened += 1
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ session: PostgresSession) {
        condition.lock()
        idle.append(session)
        condition.signal()
        condition.unlock()
    }

    private func discard(_ session: PostgresSession) {
        session.close()
        condition.lock()
        opened -= 1
        condition.signal()
        condition.unlock()
    }
}
