import Dispatch
import Foundation
import LineupLocking
@testable import LineupPostgres
@testable import LineupStore
import Logging
import Synchronization
import Testing

/// A session's statements when the server drops its connection (a restart, a failover).
@Suite(.enabled(if: StoreKind.allCases.contains(.postgres), "no PostgreSQL server here"))
struct PostgresSessionTests {
    /// The server drops the connection again and again (40 times) while a thread runs
    /// statement after statement: each one is answered or fails, none waits for ever, and the
    /// session goes on.
    /// Before `answer(to:on:)`, a statement that met the drop just after the session saw its
    /// connection open was lost by postgres-nio and waited for ever.
    @Test func statementsWhileTheServerDropsTheConnectionAreAnsweredOrFailAndNeverHang() throws {
        let place = try TemporaryStoreURL(.postgres)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let session = try PostgresSession.connect(to: place.url, logger: logger)
        let dropper = try PostgresSession.connect(to: place.url, logger: logger)
        defer { dropper.close() }

        let stop = Atomic<Bool>(false)
        let tally = Locked((answered: 0, failed: 0))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.load(ordering: .relaxed) {
                do {
                    _ = try session.rows("SELECT 1")
                    tally.withLock { $0.answered += 1 }
                } catch {
                    tally.withLock { $0.failed += 1 }
                }
            }
            done.signal()
        }
        // Until the session's connection has been dropped 40 times: how many tries that takes
        // depends on how fast the session connects again, which a loaded machine slows.
        var drops = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while drops < 40, ContinuousClock.now < deadline {
            let dropped = try dropper.rows(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            if dropped.first?.first == .integer(1) { drops += 1 }
            Thread.sleep(forTimeInterval: 0.004)
        }
        stop.store(true, ordering: .relaxed)
        let ended = done.wait(timeout: .now() + 30)
        let counts = tally.withLock { $0 }
        try #require(ended == .success, "a statement was still waiting 30 s after the last drop (\(counts))")
        #expect(drops >= 20, "the dropper found the session's connection \(drops) times in 30 s")
        #expect(counts.failed > 0 && counts.answered > 0, "\(counts)")
        // The last drop may have come after the thread's last statement: the next statement
        // meets it and may fail, as the thread's did; the one after is answered.
        let afterTheDrops = try (try? session.rows("SELECT 1")) ?? session.rows("SELECT 1")
        #expect(afterTheDrops == [[.integer(1)]])
        session.close()
    }
}
