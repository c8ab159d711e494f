public import Foundation

/// Where `fetch-buoy` may fetch from and how much it may take: the hosts a configuration
/// allows, and the bounds on redirects, size and time that keep a feed from holding a job (or
/// the disk) for long.
public struct BuoyFeedPolicy: Sendable, Hashable {
    /// Host names a feed's URL, and every redirect's target, must have exactly (compared without
    /// regard to case, as DNS does). No wildcard and no suffix match: `ndbc.noaa.gov` does not
    /// allow `www.ndbc.noaa.gov`. Empty: every fetch is refused.
    public var allowedHosts: Set<String>
    /// Redirects followed before the fetch fails (default 5).
    public var maxRedirects: Int
    /// The largest body taken, in bytes (default 64 MiB: NDBC's station catalogue is some
    /// 300 kB, and an SOS answer of a month of one station a few MB).
    public var maxBodyBytes: Int
    /// How long the whole fetch may take, redirects and body included (default 60 s).
    public var timeout: Duration

    /// The default bounds, with `allowedHosts`.
    public init(allowedHosts: some Sequence<String>, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20, timeout: Duration = .seconds(60)) {
        precondition(maxRedirects >= 0 && maxBodyBytes > 0 && timeout > .zero, "a feed policy's bounds must be positive")
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.timeout = timeout
    }

    /// Whether `url` is an `http` or `https` URL whose host is one of ``allowedHosts``.
    public func allows(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host?.lowercased()
        else { return false }
        return allowedHosts.contains(host)
    }

    /// The allowed hosts, for messages.
    public var allowedHostsDescription: String {
        allowedHosts.isEmpty
            ? "the configuration allows no host: set `allowedHosts`, or --allowed-host"
            : "allowed hosts: \(allowedHosts.sorted().joined(separator: ", "))"
    }
}
