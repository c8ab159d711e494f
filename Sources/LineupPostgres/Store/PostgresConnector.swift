import LineupStore
import Logging
import NIOCore
import PostgresNIO

/// Opens connections as libpq opens them from the same settings: each host in turn until one
/// accepts and is of the kind `target_session_attrs` asks for, with TLS as `sslmode` says, a
/// Unix socket where the host is a directory, `connect_timeout` for each host, and
/// `application_name` in the startup message. A session keeps its connector and opens its next
/// connection (after a drop) through it, so a failover goes through the host list again.
///
/// postgres-nio (its `NIOSSL`) does the TLS; what it cannot express, libpq's fallbacks, the
/// connector does by trying again: `allow` connects without TLS, then with it if the server
/// refused; `prefer` connects with TLS where the server offers it (postgres-nio's `.prefer`),
/// then without it if the TLS handshake failed.
struct PostgresConnector: Sendable {
    let settings: PostgresConnectionSettings

    init(_ settings: PostgresConnectionSettings) {
        self.settings = settings
    }

    /// The connection string without its password, for messages.
    var location: String { settings.location }

    /// A new connection, or a ``PostgresConnectionFailure`` with every host's reason.
    ///
    /// The certificate files are read here, on the caller's thread, each time (libpq reads them
    /// at each connection too: a renewed certificate is taken at the next one).
    func connect(on eventLoop: any EventLoop, id: Int, logger: Logger) -> EventLoopFuture<PostgresConnection> {
        let tlsContext: NIOSSLContext?
        do {
            tlsContext = try makeTLSContext()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        // prefer-standby: a standby among all the hosts first, and only then any server.
        let passes: [PostgresConnectionSettings.TargetSessionAttributes] =
            settings.targetSessionAttributes == .preferStandby ? [.standby, .any] : [settings.targetSessionAttributes]
        let plan = passes.flatMap { wanted in settings.hosts.map { Step(host: $0, wanted: wanted) } }
        return attempt(plan[...], failures: [], tlsContext: tlsContext, on: eventLoop, id: id, logger: logger)
    }

    /// One host to try, and what it must be.
    private struct Step: Sendable {
        var host: PostgresConnectionSettings.Host
        var wanted: PostgresConnectionSettings.TargetSessionAttributes
    }

    private func attempt(
        _ plan: ArraySlice<Step>, failures: [PostgresConnectionFailure.Attempt], tlsContext: NIOSSLContext?,
        on eventLoop: any EventLoop, id: Int, logger: Logger
    ) -> EventLoopFuture<PostgresConnection> {
        guard let step = plan.first else {
            return eventLoop.makeFailedFuture(PostgresConnectionFailure(attempts: failures))
        }
        return connect(to: step.host, tlsContext: tlsContext, on: eventLoop, id: id, logger: logger)
            .flatMap { connection in self.check(connection, is: step.wanted, logger: logger) }
            .map { connection in
                if !failures.isEmpty {
                    logger.info(
                        "connected to a later host",
                        metadata: [
                            "database": "\(self.location)", "host": "\(step.host)",
                            "skipped": "\(failures.map { "\($0.host): \($0.reason)" }.joined(separator: "; "))",
                        ])
                }
                return connection
            }
            .flatMapError { error in
                let failure = PostgresConnectionFailure.Attempt(
                    host: step.host.description, reason: self.reason(for: error, host: step.host),
                    mayAcceptLater: Self.mayAcceptLater(error))
                logger.debug(
                    "a host did not accept the connection",
                    metadata: ["database": "\(self.location)", "host": "\(failure.host)", "reason": "\(failure.reason)"])
                return self.attempt(
                    plan.dropFirst(), failures: failures + [failure], tlsContext: tlsContext, on: eventLoop, id: id, logger: logger)
            }
    }

    // MARK: - One host

    private enum Encryption: Sendable {
        case none, preferred, required
    }

    /// One host, with libpq's second try for `allow` and `prefer`.
    private func connect(
        to host: PostgresConnectionSettings.Host, tlsContext: NIOSSLContext?, on eventLoop: any EventLoop, id: Int,
        logger: Logger
    ) -> EventLoopFuture<PostgresConnection> {
        let first: Encryption
        let second: (Encryption, when: @Sendable (any Error) -> Bool)?
        switch (host.socketPath, settings.sslMode) {
        case (.some, _), (nil, .disable):
            // libpq never asks for TLS on a Unix socket, whatever sslmode says.
            (first, second) = (.none, nil)
        case (nil, .allow):
            (first, second) = (.none, (.required, Self.isRefusalByTheServer))
        case (nil, .prefer):
            (first, second) = (.preferred, (.none, Self.isTLSFailure))
        case (nil, .require), (nil, .verifyCA), (nil, .verifyFull):
            (first, second) = (.required, nil)
        }
        let open: @Sendable (Encryption) -> EventLoopFuture<PostgresConnection> = { encryption in
            PostgresConnection.connect(
                on: eventLoop, configuration: self.configuration(for: host, encryption: encryption, tlsContext: tlsContext),
                id: id, logger: logger)
        }
        guard case let (encryption, shouldRetry)? = second else { return open(first) }
        return open(first).flatMapError { error in
            guard shouldRetry(error) else { return eventLoop.makeFailedFuture(error) }
            let firstReason = self.reason(for: error, host: host)
            logger.debug(
                "connecting again \(encryption == .none ? "without" : "with") TLS",
                metadata: ["database": "\(self.location)", "host": "\(host)", "reason": "\(firstReason)"])
            return open(encryption).flatMapErrorThrowing { secondError in
                throw WordedFailure(
                    reason: "\(firstReason); then \(encryption == .none ? "without" : "with") TLS: \(self.reason(for: secondError, host: host))")
            }
        }
    }

    /// A failure whose reason is worded already (both of a host's tries, a certificate file).
    struct WordedFailure: Error {
        var reason: String
    }

    /// Refused by the server: it answered with an error (pg_hba.conf), which `allow` takes as a
    /// call for TLS, as libpq does.
    private static let isRefusalByTheServer: @Sendable (any Error) -> Bool = { error in
        (error as? PSQLError)?.code == .server
    }

    /// A TLS handshake that failed, after which `prefer` goes on without TLS, as libpq does.
    private static let isTLSFailure: @Sendable (any Error) -> Bool = { error in
        guard let error = error as? PSQLError else { return false }
        if error.code == .failedToAddSSLHandler { return true }
        return error.code == .connectionError && (error.underlying is NIOSSLError || error.underlying is NIOSSLExtraError)
    }

    private func configuration(
        for host: PostgresConnectionSettings.Host, encryption: Encryption, tlsContext: NIOSSLContext?
    ) -> PostgresConnection.Configuration {
        let password = host.password?.text
        var configuration: PostgresConnection.Configuration
        switch host.endpoint {
        case .socket:
            configuration = .init(
                unixSocketPath: host.socketPath ?? "", username: settings.user, password: password, database: settings.database)
        case let .tcp(name, address):
            let tls: PostgresConnection.Configuration.TLS =
                switch (encryption, tlsContext) {
                case (.preferred, let context?): .prefer(context)
                case (.required, let context?): .require(context)
                default: .disable
                }
            configuration = .init(
                host: address ?? name, port: host.port, username: settings.user, password: password, database: settings.database,
                tls: tls)
            // With hostaddr, the certificate must still name the host (libpq); postgres-nio would
            // check it against the address. An IP address goes in no SNI: NIOSSL then checks the
            // certificate against the address connected to.
            if address != nil, !name.isEmpty, !Self.isIPAddress(name) {
                configuration.options.tlsServerName = name
            }
        }
        configuration.options.connectTimeout =
            settings.connectTimeout.map { TimeAmount($0) } ?? Self.unlimitedConnectTimeout
        if let applicationName = settings.applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        if let serverOptions = settings.serverOptions {
            configuration.options.additionalStartupParameters.append(("options", serverOptions))
        }
        return configuration
    }

    /// `connect_timeout=0`: libpq waits as long as it takes; postgres-nio needs a time, so a year.
    private static let unlimitedConnectTimeout = TimeAmount.hours(24 * 365)

    static func isIPAddress(_ text: String) -> Bool {
        (try? SocketAddress(ipAddress: text, port: 0)) != nil
    }

    // MARK: - TLS

    /// The TLS context that `sslmode` and the certificate settings call for; nil where TLS is
    /// never tried.
    private func makeTLSContext() throws(PostgresConnectionFailure) -> NIOSSLContext? {
        guard settings.sslMode != .disable, settings.hosts.contains(where: { $0.socketPath == nil }) else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch (settings.sslMode, settings.rootCertificates) {
        case (.verifyFull, _):
            configuration.certificateVerification = .fullVerification
        case (.verifyCA, _), (_, .file), (_, .system):
            // libpq: with root certificates at hand, even require (and prefer, allow) checks the chain.
            configuration.certificateVerification = .noHostnameVerification
        case (_, .none):
            configuration.certificateVerification = .none
        }
        do {
            switch settings.rootCertificates {
            case let .file(path):
                configuration.trustRoots = .certificates(try Self.certificates(in: path, option: "sslrootcert"))
            case .system:
                configuration.trustRoots = .default
            case .none:
                break
            }
            if let client = settings.clientCertificate {
                configuration.certificateChain = try Self.certificates(in: client.certificate, option: "sslcert").map { .certificate($0) }
                do {
                    configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: client.key, format: .pem))
                } catch {
                    throw WordedFailure(reason: "cannot read the private key file \"\(client.key)\" (sslkey): \(error)")
                }
            }
            return try NIOSSLContext(configuration: configuration)
        } catch {
            let reason = (error as? WordedFailure)?.reason ?? "cannot set up TLS: \(error)"
            throw PostgresConnectionFailure(attempts: [.init(host: "", reason: reason)])
        }
    }

    private static func certificates(in path: String, option: String) throws -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw WordedFailure(reason: "cannot read the certificate file \"\(path)\" (\(option)): \(error)")
        }
        guard !certificates.isEmpty else {
            throw WordedFailure(reason: "the certificate file \"\(path)\" (\(option)) holds no PEM certificate")
        }
        return certificates
    }
}
