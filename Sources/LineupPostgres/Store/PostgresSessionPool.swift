import Foundation
import LineupStore
import LineupLocking

/// The connections that task contexts read with: at most `capacity`, opened on first need. A read
/// waits while every one is in use, as a task waits for one of SQLite's pooled readers. A
/// connection whose call failed is closed, not reused: the next use connects afresh, so a pool
/// outlives a server's restart.
///
/// A read that finds none free sleeps in `Locked`'s wait until a check-in or a discard changes the
/// counts. Connecting and closing happen outside the lock.
package final class PostgresSessionPool: Sendable {
    private struct Sessions {
        var idle: [PostgresSession] = []
        var opened = 0
    }

    private let sessions = Locked(Sessions())
    private let capacity: Int
    private let connect: @Sendable () throws -> PostgresSession

    /// Makes a pool of at most `capacity` connections, each opened by `connect` when first needed.
    package init(capacity: Int, connect: @escaping @Sendable () throws -> PostgresSession) {
        precondition(capacity > 0, "a pool needs at least one connection")
        self.capacity = capacity
        self.connect = connect
    }

    /// Runs `body` with a connection that no other thread uses meanwhile.
    package func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
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

    /// Closes the idle connections. Call it once no read uses the pool: a connection checked out
    /// meanwhile comes back idle, and is closed when it goes (``PostgresSession``'s `deinit`).
    package func close() {
        let idle = sessions.withLock { sessions in
            defer { sessions.idle = [] }
            return sessions.idle
        }
        for session in idle { session.close() }
    }

    private func checkOut() throws -> PostgresSession {
        let capacity = self.capacity
        let reused = sessions.withLock(when: { !$0.idle.isEmpty || $0.opened < capacity }) { sessions -> PostgresSession? in
            if let session = sessions.idle.popLast() { return session }
            sessions.opened += 1
            return nil
        }
        if let reused { return reused }
        do {
            return try connect()
        } catch {
            sessions.withLock { $0.opened -= 1 }
            throw error
        }
    }

    private func checkIn(_ session: PostgresSession) {
        sessions.withLock { $0.idle.append(session) }
    }

    private func discard(_ session: PostgresSession) {
        session.close()
        sessions.withLock { $0.opened -= 1 }
    }
}
