import Dispatch
import Foundation
import LineupJobs
import LineupLocking
import LineupStore
import Logging

/// Whether the listener hears the database's notifications.
///
/// A pooler in transaction mode (PgBouncer's `pool_mode = transaction`) runs the listener's
/// `LISTEN` on whichever server connection is free, and gives that connection to another client
/// at the next transaction: the notifications go to that client, or, while the connection is
/// idle, PgBouncer drops them ("got packet 'A' from server when not linked" in its log), and never
/// reach the listener. Nothing in the connection tells a pooler from a server, so the daemon asks:
/// it notifies a channel of its own over the jobs' connections, as an enqueuer does, and looks
/// whether its listener heard it. A server delivers it in milliseconds; through such a pooler it
/// never comes.
extension DatabaseJobStorage {
    /// The channel of the check; its payload is one daemon's token, so that daemons starting
    /// together do not take each other's notification for their own.
    static let listenCheckChannel = "lineup_listen_check"
    /// How long the check's notification may take: far beyond a server's delivery, even on a
    /// loaded host, so that a warning means the listener is cut off.
    static let listenCheckTimeout: Duration = .seconds(10)

    /// Listens on ``listenCheckChannel`` at `listener`, sends the check's notification over the
    /// jobs' pool on the ticks' queue, and warns once ``listenCheckTimeout`` has passed without
    /// it: the daemon then finds new jobs by polling alone, every `pollInterval`. Returns at once.
    func checkNotificationsArrive(at listener: PostgresSession, pollInterval: Duration) {
        let token = UUID().uuidString
        let heard = Locked(false)
        do {
            try listener.listen(to: Self.listenCheckChannel) { payload in
                if payload == token { heard.withLock { $0 = true } }
            }
        } catch {
            logger.warning(
                "cannot check that notifications reach the listener", metadata: ["database": "\(listener.location)", "error": "\(error)"])
            return
        }
        ticks.async { [weak self] in
            guard let self else { return }
            do {
                _ = try database.sessions.withSession { session in
                    try session.execute("SELECT pg_notify($1, $2)", [.text(Self.listenCheckChannel), .text(token)])
                }
            } catch {
                logger.warning(
                    "cannot check that notifications reach the listener", metadata: ["database": "\(location)", "error": "\(error)"])
                return
            }
            ticks.asyncAfter(deadline: .now() + Self.listenCheckTimeout.dispatchInterval) { [weak self] in
                guard let self, isStarted.withLock({ $0 }) else { return }
                guard !heard.withLock({ $0 }) else {
                    logger.debug("notifications reach the listener", metadata: ["listening": "\(listener.location)"])
                    return
                }
                logger.warning(
                    """
                    notifications do not reach this daemon's listener, so it finds new jobs by polling alone: \
                    is the database behind a pooler in transaction mode (PgBouncer's pool_mode = transaction)? \
                    Give listenDatabase (--listen-database) a URL direct to the server
                    """,
                    metadata: [
                        "listening": "\(listener.location)", "database": "\(location)",
                        "pollInterval": "\(DaemonConfiguration.seconds(pollInterval))s",
                    ])
            }
        }
    }
}
