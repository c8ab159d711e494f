import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A crash test's hook (`Tests/LineupCLITests/OutboxCrashTests.swift`): with
/// `LINEUP_TEST_OUTBOX_KILL_CHANCE=<p>` in its environment, the daemon sends itself SIGKILL, with
/// probability p each time, at the two moments where the outbox's exactly-once promise is at
/// stake: after a flush that wrote jobs into the outbox has committed and before any is moved,
/// and after a job is in the spool and before its row is deleted. A random kill from outside
/// lands there too seldom to test them. Not for production: unset, it does nothing.
struct OutboxFaultInjection: Sendable {
    static let variable = "LINEUP_TEST_OUTBOX_KILL_CHANCE"

    enum Point: String, Sendable {
        case afterCommit = "after-commit"
        case afterSpoolWrite = "after-spool-write"
    }

    let chance: Double

    static func fromEnvironment() -> OutboxFaultInjection? {
        guard let text = ProcessInfo.processInfo.environment[variable], let chance = Double(text), chance > 0 else { return nil }
        return OutboxFaultInjection(chance: min(chance, 1))
    }

    /// Kills the process at `point`, with the chance configured; says so on standard error first
    /// (unbuffered), so that the test can count where the kills landed.
    func mayKill(at point: Point) {
        guard Double.random(in: 0..<1) < chance else { return }
        let line = "outbox fault injection: SIGKILL \(point.rawValue)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        kill(getpid(), SIGKILL)
    }
}
