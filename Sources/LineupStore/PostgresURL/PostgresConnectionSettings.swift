/// Where a PostgreSQL server is and how to connect to it, read as libpq reads it: a
/// `postgres://` URL or a keyword/value string, over the `PG*` environment variables, over
/// libpq's defaults, with the password from `~/.pgpass` when none is given (see
/// `PostgresConnectionSettings+Parsing.swift` and `+Resolution.swift`).
///
/// It is a plain value, resolved once: a session's reconnection after a drop, and every
/// connection of a store's pools, use the same settings (and so go through the same hosts again).
///
/// Its description is ``location``, which never holds the password.
package struct PostgresConnectionSettings: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`: whether TLS is tried, required, and how the server's certificate is checked.
    package enum SSLMode: String, Sendable, CaseIterable {
        /// Never TLS.
        case disable
        /// Without TLS first; with TLS if the server refuses the connection without it.
        case allow
        /// With TLS if the server offers it (and, should the TLS handshake fail, without).
        case prefer
        /// Always TLS; the certificate is checked only when root certificates are there (libpq's
        /// compatibility rule: then `require` behaves as `verify-ca`).
        case require
        /// Always TLS, with a certificate chain to a trusted root; any host name.
        case verifyCA = "verify-ca"
        /// Always TLS, with a certificate chain to a trusted root, for the host connected to.
        case verifyFull = "verify-full"
    }

    /// libpq's `target_session_attrs`: which kind of server among the hosts is acceptable.
    package enum TargetSessionAttributes: String, Sendable, CaseIterable {
        case any
        /// A server whose sessions accept writes (`SHOW transaction_read_only` is `off`).
        case readWrite = "read-write"
        case readOnly = "read-only"
        /// A server not in recovery (`pg_is_in_recovery()` is false).
        case primary
        case standby
        /// A standby if any host is one, else any server.
        case preferStandby = "prefer-standby"
    }

    /// The certificates the server's certificate must chain to.
    package enum RootCertificates: Sendable, Equatable {
        /// None: the certificate is not checked (`require` and weaker modes without a root file).
        case none
        /// The PEM file at this path (`sslrootcert`, or libpq's `~/.postgresql/root.crt`).
        case file(String)
        /// The system's trust store (`sslrootcert=system`).
        case system
    }

    /// The PEM files of a client certificate (`sslcert`) and of its key (`sslkey`).
    package struct ClientCertificate: Sendable, Equatable {
        package var certificate: String
        package var key: String
    }

    /// One server to try, in the order given.
    package struct Host: Sendable, Equatable, CustomStringConvertible {
        package enum Endpoint: Sendable, Equatable {
            /// TCP to `name` (resolved), or to `address` when `hostaddr` gave one: then `name`,
            /// which may be empty, is still what the certificate must name.
            case tcp(name: String, address: String?)
            /// The Unix socket `<directory>/.s.PGSQL.<port>`.
            case socket(directory: String)
        }

        package var endpoint: Endpoint
        package var port: Int
        /// From the URL, `PGPASSWORD`, or the password file's line for this host.
        package var password: PostgresPassword?

        package init(endpoint: Endpoint, port: Int, password: PostgresPassword? = nil) {
            self.endpoint = endpoint
            self.port = port
            self.password = password
        }

        /// The socket's path, for a Unix socket.
        package var socketPath: String? {
            guard case let .socket(directory) = endpoint else { return nil }
            return (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
        }

        /// `host:port` (`[::1]:5432`), `name (address):port`, or the socket's path: how messages
        /// name the host.
        package var description: String {
            switch endpoint {
            case let .tcp(name, address):
                let shown = { (host: String) in host.contains(":") ? "[\(host)]" : host }
                guard let address else { return "\(shown(name)):\(port)" }
                return name.isEmpty || name == address ? "\(shown(address)):\(port)" : "\(name) (\(shown(address))):\(port)"
            case .socket:
                return socketPath ?? ""
            }
        }
    }

    /// libpq's compiled-in default socket directory, Debian's (`DEFAULT_PGSOCKET_DIR`): where
    /// libpq connects when no host is given, and the directory that `localhost` in a password
    /// file stands for.
    package static let defaultSocketDirectory = "/var/run/postgresql"
    package static let defaultPort = 5432
    /// How long a host may take to accept a connection when `connect_timeout` is not given.
    /// libpq waits without limit; a daemon that reconnects after a drop should not hang on a
    /// host that swallows packets, so Lineup waits this long (what it always did).
    package static let defaultConnectTimeout = Duration.seconds(10)

    /// Tried in order until one accepts (and is of ``targetSessionAttributes``).
    package var hosts: [Host]
    package var user: String
    package var database: String
    package var sslMode: SSLMode
    package var rootCertificates: RootCertificates
    /// The client certificate to send, if any.
    package var clientCertificate: ClientCertificate?
    package var targetSessionAttributes: TargetSessionAttributes
    /// Sent as the startup parameter `application_name`.
    package var applicationName: String?
    /// Sent as the startup parameter `options` (`-c search_path=…`).
    package var serverOptions: String?
    /// For each host; nil: no limit (`connect_timeout=0`).
    package var connectTimeout: Duration?
    /// The connection string as given, without its password: for messages, logs and status.
    package var location: String
    /// What was ignored, as libpq says it on standard error (a password file that others can
    /// read): the caller logs them.
    package var warnings: [String]

    package init(
        hosts: [Host], user: String, database: String, sslMode: SSLMode = .prefer, rootCertificates: RootCertificates = .none,
        targetSessionAttributes: TargetSessionAttributes = .any, connectTimeout: Duration? = defaultConnectTimeout,
        location: String
    ) {
        self.hosts = hosts
        self.user = user
        self.database = database
        self.sslMode = sslMode
        self.rootCertificates = rootCertificates
        self.targetSessionAttributes = targetSessionAttributes
        self.connectTimeout = connectTimeout
        self.location = location
        self.warnings = []
    }

    package var description: String { location }
}
