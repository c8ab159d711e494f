/// Why a connection could not be made: each host tried, in order, with its reason (libpq lists
/// them so too). The reasons are built from the settings' redacted location, the hosts' names
/// and the server's and TLS library's words, so they never hold the password.
struct PostgresConnectionFailure: Error, Sendable, CustomStringConvertible {
    struct Attempt: Sendable, Equatable {
        /// How messages name the host (``PostgresConnectionSettings/Host/description``); empty
        /// for a failure that no host caused.
        var host: String
        var reason: String
        /// Whether the host may take the connection later (see ``PostgresConnector/mayAcceptLater(_:)``).
        var mayAcceptLater = false
    }

    var attempts: [Attempt]

    /// Whether a later connection may succeed: some host turned it away for now (not running,
    /// starting, a standby while a read-write server is wanted), not for what it was asked (a
    /// password, a certificate, a database that does not exist).
    var isTransient: Bool { attempts.contains(where: \.mayAcceptLater) }

    /// One host: `host: reason`; several: each of them, in the order they were tried. A failure
    /// before any host (a certificate file that cannot be read) has no host: its reason alone.
    var description: String {
        guard attempts.count != 1 else {
            return attempts[0].host.isEmpty ? attempts[0].reason : "\(attempts[0].host): \(attempts[0].reason)"
        }
        return "no host accepted the connection: " + attempts.map { "\($0.host): \($0.reason)" }.joined(separator: "; ")
    }
}
