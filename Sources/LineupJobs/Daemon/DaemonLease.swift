public import Foundation

/// A daemon that holds a lease on the jobs of a database that several daemons share (LineupPostgres's
/// `lineup_daemons`), as `lineup status` and the dashboard list it.
public struct DaemonLease: Sendable, Encodable {
    /// The host name the daemon runs on.
    public var host: String
    /// The daemon's process id on that host.
    public var pid: Int
    /// When the daemon registered, at its start.
    public var startedAt: Date
    /// When its lease runs out unless a heartbeat renews it; past this, other daemons take its
    /// jobs back.
    public var leaseExpiresAt: Date

    /// Makes the record of a lease.
    public init(host: String, pid: Int, startedAt: Date, leaseExpiresAt: Date) {
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.leaseExpiresAt = leaseExpiresAt
    }
}
