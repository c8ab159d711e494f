#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LineupStore
import NIOCore
import NIOPosix
import PostgresNIO

/// Why a host did not take the connection, in words a person acts on: the server's own message
/// (pg_hba.conf's "no encryption"), which check of its certificate failed (unknown CA or host
/// name mismatch), or what the network said. postgres-nio's `PSQLError` describes itself only
/// generically, and NIOSSL's errors by BoringSSL's codes.
extension PostgresConnector {
    /// Whether the host that failed with `error` may take the connection later: the network's
    /// failures (refused while the server restarts, reset, timed out) and a server of the wrong
    /// kind (a standby before its promotion) may pass; the server's refusal, TLS and our own
    /// settings' do not, unless the server said it is shutting down or starting.
    static func mayAcceptLater(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: PostgresSession.isTransient(error)
        case is WrongKindOfServer: true
        case is WordedFailure, is NIOSSLError, is NIOSSLExtraError: false
        default: true
        }
    }

    func reason(for error: any Error, host: PostgresConnectionSettings.Host) -> String {
        switch error {
        case let error as WordedFailure:
            return error.reason
        case let error as WrongKindOfServer:
            return error.reason
        case let error as PSQLError:
            return reason(for: error, host: host)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "host name mismatch: the server's certificate is not for \"\(Self.certificateName(of: host))\" (sslmode=verify-full)"
        case let error as NIOSSLError:
            guard case let .handshakeFailed(.sslError(stack)) = error else { return "TLS failed: \(error)" }
            let codes = stack.map { "\($0)" }.joined(separator: ", ")
            guard codes.contains("CERTIFICATE_VERIFY_FAILED") else { return "the TLS handshake failed: \(codes)" }
            return "unknown CA: the server's certificate is not signed by \(rootsDescription)"
                + " (certificate verify failed; or the certificate has expired)"
        case let error as ChannelError:
            if case let .connectTimeout(limit) = error {
                return "no connection within \(limit.nanoseconds / 1_000_000_000) s (connect_timeout)"
            }
            return "\(error)"
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return self.reason(for: failure.error, host: host) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "could not resolve the host name \"\(error.host)\"" }
            return "could not connect"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        default:
            return "\(error)"
        }
    }

    private func reason(for error: PSQLError, host: PostgresConnectionSettings.Host) -> String {
        if error.serverInfo != nil { return PostgresSession.describe(error) }
        switch error.code {
        case .connectionError:
            guard let underlying = error.underlying else { break }
            return reason(for: underlying, host: host)
        case .sslUnsupported:
            return "the server does not accept TLS connections, and sslmode=\(settings.sslMode.rawValue) requires TLS"
        case .authMechanismRequiresPassword:
            return "the server asks for a password, and none was given (in the URL, PGPASSWORD, or a line of the password file for this host)"
        case .serverClosedConnection, .uncleanShutdown:
            guard let underlying = error.underlying else { return "the server closed the connection" }
            return "the server closed the connection: \(reason(for: underlying, host: host))"
        default:
            break
        }
        return error.underlying.map { "\(error.code): \(reason(for: $0, host: host))" } ?? "\(error.code)"
    }

    /// The name a server's certificate must hold for `host`.
    private static func certificateName(of host: PostgresConnectionSettings.Host) -> String {
        guard case let .tcp(name, address) = host.endpoint else { return "" }
        return name.isEmpty ? address ?? "" : name
    }

    /// Which certificates the server's must chain to, for messages.
    private var rootsDescription: String {
        switch settings.rootCertificates {
        case let .file(path): "a certificate of \"\(path)\" (sslrootcert)"
        case .system: "a certificate of the system's trust store (sslrootcert=system)"
        case .none: "a trusted certificate"
        }
    }
}
