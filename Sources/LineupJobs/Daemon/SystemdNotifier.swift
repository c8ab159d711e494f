public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells systemd how the daemon is doing (`sd_notify(3)`): ready, reloading, stopping, a status
/// line, and the watchdog's keep-alive. The protocol is one datagram of `KEY=value` lines on the
/// Unix socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace), so no
/// libsystemd is linked. Outside systemd (`$NOTIFY_SOCKET` unset) there is no notifier at all.
///
/// ```swift
/// let notifier = SystemdNotifier()                       // nil when not run by systemd
/// notifier?.notify("READY=1", "STATUS=claiming jobs")
/// ```
public struct SystemdNotifier: Sendable {
    /// Where the datagrams go, as `$NOTIFY_SOCKET` gives it.
    public let socketPath: String
    /// How often systemd expects `WATCHDOG=1` at the latest (`$WATCHDOG_USEC`), when its
    /// watchdog is on for this process; nil otherwise.
    public let watchdogTimeout: Duration?

    /// Reads `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` from `environment`; nil
    /// when there is no socket to notify.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let socketPath = environment["NOTIFY_SOCKET"], !socketPath.isEmpty else { return nil }
        self.socketPath = socketPath
        // WATCHDOG_PID, when set, names the process the watchdog is for: a child started with
        // the same environment must not think it is.
        let watchdogIsOurs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if watchdogIsOurs, let microseconds = environment["WATCHDOG_USEC"].flatMap(Int64.init), microseconds > 0 {
            watchdogTimeout = .microseconds(microseconds)
        } else {
            watchdogTimeout = nil
        }
    }

    /// Sends the assignments (`"READY=1"`, `"STATUS=…"`) as one datagram.
    ///
    /// - Returns: whether the datagram was sent. A notification is advice to the supervisor:
    ///   a failure to send it (systemd restarting, the socket gone) must not stop the daemon.
    @discardableResult
    public func notify(_ assignments: String...) -> Bool {
        send(assignments.joined(separator: "\n"))
    }

    /// `RELOADING=1` with the monotonic time, as systemd wants it for a reload to be told apart.
    public static var reloadingAssignments: [String] {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return ["RELOADING=1", "MONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000)"]
    }

    /// Sends a message already joined into lines.
    @discardableResult
    public func send(_ message: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // `@name` is Linux's abstract namespace: a leading NUL byte instead of the `@`.
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
        return sent == bytes.count
    }
}

extension SystemdNotifier {
    /// The daemon's watchdog, fed with `WATCHDOG=1`, when systemd's watchdog is on.
    public var watchdog: JobDaemon.Watchdog? {
        watchdogTimeout.map { timeout in
            JobDaemon.Watchdog(timeout: timeout) { self.notify("WATCHDOG=1") }
        }
    }

    /// Tells systemd what the daemon does, from its events, until they end: `READY=1` once
    /// the store is open and `active/` recovered, `RELOADING=1` then `READY=1` for a reload
    /// (sent once it is applied), `STOPPING=1` at shutdown, and a `STATUS=` line with the
    /// counts after each flush. Subscribe with ``JobDaemon/events()`` before the daemon runs.
    public func follow(_ events: DaemonEvents, of daemon: JobDaemon) async {
        for await event in events {
            switch event {
            case .started:
                notify("READY=1", "STATUS=\(await Self.statusLine(daemon))")
            case .reloaded:
                send(Self.reloadingAssignments.joined(separator: "\n"))
                notify("READY=1")
            case .stopping:
                notify("STOPPING=1", "STATUS=stopping: finishing the running jobs")
            case .flushed, .flushFailed:
                notify("STATUS=\(await Self.statusLine(daemon))")
            default:
                break
            }
        }
    }

    static func statusLine(_ daemon: JobDaemon) async -> String {
        guard let status = await daemon.status() else { return "starting" }
        var line =
            "running \(status.running.count), queued \(status.queued), awaiting flush \(status.awaitingFlush), waiting to retry \(status.waitingForRetry)"
        if status.consecutiveFlushFailures > 0 {
            line += "; \(status.consecutiveFlushFailures) flushes failed in a row"
        }
        return line
    }
}
