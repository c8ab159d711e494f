import Foundation
@testable import LineupPostgres
@testable import LineupStore
import LineupTestSupport
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Connections as libpq users expect them, against the tests' own server (see
/// `PostgresTestServer+TLS.swift`): TLS with the server's own CA, a role that only TLS reaches,
/// the Unix socket, several hosts, the password file, and no password in any message.
@Suite(
    .enabled(
        if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired,
        "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresTLSTests {
    let server: PostgresTestServer
    let tls: PostgresTestServer.TLSFiles
    let tlsUser = PostgresTestServer.tlsOnlyUsername

    init() throws {
        server = try PostgresTestServer.shared()
        tls = try #require(server.tls, "the test server has no TLS: openssl is not installed (apt-get install openssl)")
    }

    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    /// The process's file system, but none of its `PG*` variables and a home directory without
    /// `~/.pgpass` or `~/.postgresql`: what a test connects with is what it says.
    static func environment(_ variables: [String: String] = [:]) -> PostgresConnectionEnvironment {
        var environment = PostgresConnectionEnvironment.process
        environment.variables = variables
        environment.homeDirectory = "/nonexistent/lineup-test-home"
        return environment
    }

    static func connect(_ text: String, _ environment: PostgresConnectionEnvironment = environment()) throws -> PostgresSession {
        let settings = try PostgresConnectionSettings(text, environment: environment)
        return try PostgresSession.connect(PostgresConnector(settings), location: settings.location, logger: logger)
    }

    /// The message of the error that connecting with `text` throws.
    static func failure(_ text: String, _ environment: PostgresConnectionEnvironment = environment()) -> String {
        do {
            try connect(text, environment).close()
            return "connected"
        } catch {
            return "\(error)"
        }
    }

    /// Whether the session's connection is encrypted, as the server sees it.
    static func usesTLS(_ session: PostgresSession) throws -> Bool {
        try session.rows("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") == [[.integer(1)]]
    }

    var tcp: String { "\(server.host):\(server.port)" }

    // MARK: - sslmode

    /// Only TLS reaches `lineup_tls`, and `require` gets in, encrypted.
    @Test func requireConnectsOverTLS() throws {
        let session = try Self.connect("postgres://\(tlsUser)@\(tcp)/postgres?sslmode=require")
        defer { session.close() }
        #expect(try Self.usesTLS(session))
    }

    /// `disable` offers no TLS, and the server's pg_hba.conf refuses: its reason is in the error.
    @Test func disableIsRefusedWithTheServersReason() {
        let message = Self.failure("postgres://\(tlsUser)@\(tcp)/postgres?sslmode=disable")
        #expect(message.contains("pg_hba.conf rejects connection"), "\(message)")
        #expect(message.contains("no encryption"), "\(message)")
        #expect(message.contains("127.0.0.1:\(server.port)"), "the host is named: \(message)")
    }

    /// `prefer` (the default) takes the TLS the server offers; `allow` goes without it first, and
    /// with it once the server refuses.
    @Test func preferAndAllowEndOverTLSWhereOnlyTLSIsAccepted() throws {
        for mode in ["prefer", "allow"] {
            let session = try Self.connect("postgres://\(tlsUser)@\(tcp)/postgres?sslmode=\(mode)")
            defer { session.close() }
            #expect(try Self.usesTLS(session), "sslmode=\(mode)")
        }
        let plain = try Self.connect("postgres://\(server.username)@\(tcp)/postgres?sslmode=allow")
        defer { plain.close() }
        #expect(try !Self.usesTLS(plain), "allow stays without TLS where the server lets it in")
    }

    @Test func verifyFullConnectsWithTheServersCA() throws {
        for host in ["localhost", "127.0.0.1"] {
            let session = try Self.connect(
                "postgres://\(tlsUser)@\(host):\(server.port)/postgres?sslmode=verify-full&sslrootcert=\(tls.certificateAuthority)")
            defer { session.close() }
            #expect(try Self.usesTLS(session), "\(host)")
        }
    }

    /// The certificate names localhost and 127.0.0.1. Through 127.0.0.2, asked for as
    /// `wrong.example` (hostaddr) or as itself, verify-full refuses, naming the mismatch;
    /// verify-ca, which checks no name, connects.
    @Test func verifyFullRefusesAHostNameTheCertificateDoesNotHold() throws {
        let address = PostgresTestServer.unnamedLoopbackAddress
        for (hosts, name) in [("host=wrong.example&hostaddr=\(address)", "wrong.example"), ("host=\(address)", address)] {
            let text = "postgres://\(tlsUser)@/postgres?\(hosts)&port=\(server.port)&sslrootcert=\(tls.certificateAuthority)"
            let message = Self.failure(text + "&sslmode=verify-full")
            #expect(message.contains("host name mismatch"), "\(message)")
            #expect(message.contains("\"\(name)\""), "\(message)")
            #expect(!message.contains("unknown CA"), "\(message)")
            let chainOnly = try Self.connect(text + "&sslmode=verify-ca")
            defer { chainOnly.close() }
            #expect(try Self.usesTLS(chainOnly))
        }
    }

    @Test func verifyModesRefuseACertificateOfAnotherCA() {
        for mode in ["verify-full", "verify-ca", "require"] {
            // require with sslrootcert checks the chain, as verify-ca (libpq's rule).
            let message = Self.failure(
                "postgres://\(tlsUser)@localhost:\(server.port)/postgres?sslmode=\(mode)&sslrootcert=\(tls.foreignCertificateAuthority)")
            #expect(message.contains("unknown CA"), "sslmode=\(mode): \(message)")
            #expect(message.contains(tls.foreignCertificateAuthority), "sslmode=\(mode): \(message)")
            #expect(!message.contains("host name mismatch"), "sslmode=\(mode): \(message)")
        }
    }

    /// `cert` authentication: the client certificate signed by the CA logs `lineup_cert` in; without
    /// it the server says why not.
    @Test func aClientCertificateLogsIn() throws {
        let text = "postgres://\(PostgresTestServer.certificateUsername)@localhost:\(server.port)/postgres?sslmode=verify-full"
            + "&sslrootcert=\(tls.certificateAuthority)"
        let session = try Self.connect(text + "&sslcert=\(tls.clientCertificate)&sslkey=\(tls.clientKey)")
        defer { session.close() }
        #expect(try session.rows("SELECT current_user::text") == [[.text(PostgresTestServer.certificateUsername)]])
        let message = Self.failure(text)
        #expect(message.contains("certificate"), "\(message)")
    }

    /// The store connects through the same settings: a stack over verified TLS, as the role that
    /// only TLS lets in, shown without anything of the URL lost.
    @Test func aStoreOpensOverVerifiedTLS() throws {
        let database = try server.createDatabase()
        defer { try? server.dropDatabase(database) }
        // PostgreSQL 15 lets only the database's owner create tables in its public schema.
        _ = try server.psql("ALTER DATABASE \(database) OWNER TO \(tlsUser)", database: "postgres")
        let url = try #require(
            URL(string: "postgres://\(tlsUser)@localhost:\(server.port)/\(database)?sslmode=verify-full&sslrootcert=\(tls.certificateAuthority)"))
        let container = try PersistentContainer(postgresURL: url, model: testModel, logger: Self.logger)
        defer { try? container.close() }
        let context = container.newTaskContext(name: "tls")
        try context.performAndWait {
            _ = context.insertEntry("over TLS", rating: 1)
            try context.save()
        }
        try container.flush()
        #expect(try container.rowCount(of: "Entry") == 1)
        #expect(container.storeLocation == url.absoluteString)
    }

    // MARK: - Unix socket

    @Test func theUnixSocketConnectsAsAQueryHostAndAsAPercentEncodedHost() throws {
        let directory = server.socketDirectory
        let encoded = try #require(directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        for text in [
            "postgresql:///postgres?host=\(directory)&port=\(server.port)&user=\(server.username)",
            "postgresql://\(server.username)@\(encoded):\(server.port)/postgres",
            "host=\(directory) port=\(server.port) user=\(server.username) dbname=postgres sslmode=require",
        ] {
            let session = try Self.connect(text)
            defer { session.close() }
            // No client address: a Unix socket, with no TLS whatever sslmode says (as libpq).
            #expect(try session.rows("SELECT (inet_client_addr() IS NULL)::int") == [[.integer(1)]], "\(text)")
            #expect(try !Self.usesTLS(session), "\(text)")
        }
    }

    // MARK: - Several hosts

    /// The first host is down (a port nothing listens on); read-write takes the second.
    @Test func aDownHostIsSkippedForTheNextReadWriteOne() throws {
        let down = try Self.unusedPort()
        let session = try Self.connect(
            "postgresql://\(server.username)@127.0.0.1:\(down),127.0.0.1:\(server.port)/postgres?target_session_attrs=read-write")
        defer { session.close() }
        #expect(try session.rows("SELECT inet_server_port()") == [[.integer(Int64(server.port))]])
    }

    /// Both fail, the second because its sessions are read-only: the error lists both, each with
    /// its reason. read-only takes that same server.
    @Test func whenEveryHostFailsTheErrorListsEachWithItsReason() throws {
        let database = try server.createDatabase()
        defer { try? server.dropDatabase(database) }
        _ = try server.psql("ALTER DATABASE \(database) SET default_transaction_read_only = on", database: "postgres")
        let down = try Self.unusedPort()
        let hosts = "postgresql://\(server.username)@127.0.0.1:\(down),127.0.0.1:\(server.port)/\(database)"
        let message = Self.failure(hosts + "?target_session_attrs=read-write")
        #expect(message.contains("no host accepted the connection"), "\(message)")
        #expect(message.contains("127.0.0.1:\(down): Connection refused"), "\(message)")
        #expect(message.contains("127.0.0.1:\(server.port): session is read-only"), "\(message)")
        let readOnly = try Self.connect(hosts + "?target_session_attrs=read-only")
        defer { readOnly.close() }
        #expect(try readOnly.rows("SHOW transaction_read_only") == [[.text("on")]])
    }

    /// connect_timeout counts for each host: a host that takes the TCP connection but never
    /// answers is given up after it, and the next host connects.
    @Test func connectTimeoutGivesUpOnAHostThatNeverAnswers() throws {
        let (silent, port) = try Self.silentListener()
        defer { close(silent) }
        let start = ContinuousClock.now
        let session = try Self.connect(
            "postgresql://\(server.username)@127.0.0.1:\(port),127.0.0.1:\(server.port)/postgres?connect_timeout=2&sslmode=disable")
        defer { session.close() }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(8), "\(elapsed)")
        #expect(try session.rows("SELECT inet_server_port()") == [[.integer(Int64(server.port))]])
    }

    // MARK: - Reconnection

    /// The session that the server drops connects again with the same settings: the hosts again
    /// (the first still down), TLS again, application_name again.
    @Test func aDroppedSessionConnectsAgainWithTheSameSettings() throws {
        let down = try Self.unusedPort()
        let name = "lineup-reconnect-\(UUID().uuidString.prefix(8))"
        let session = try Self.connect(
            "postgresql://\(tlsUser)@127.0.0.1:\(down),localhost:\(server.port)/postgres?sslmode=verify-full"
                + "&sslrootcert=\(tls.certificateAuthority)&application_name=\(name)&target_session_attrs=read-write")
        defer { session.close() }
        #expect(try session.rows("SELECT current_setting('application_name')") == [[.text(name)]])
        let terminated = try server.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(name)'", database: "postgres")
        #expect(terminated == "1")
        // The statement that meets the drop may fail; the next one runs on a new connection.
        let deadline = ContinuousClock.now + .seconds(10)
        var answer: [[StoreValue]]?
        while answer == nil, ContinuousClock.now < deadline {
            answer = try? session.rows("SELECT current_setting('application_name')")
        }
        #expect(answer == [[.text(name)]])
        #expect(try Self.usesTLS(session))
    }

    // MARK: - The password file, and the password in messages

    /// A password file made for the test, with `line`, readable by `permissions`.
    static func passFile(_ line: String, permissions: Int) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appending(path: "lineup-pgpass-\(UUID().uuidString)")
        try Data((line + "\n").utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file.path)
        return file
    }

    /// ``PostgresTestServer/password`` as a password file's field: `:` and `\` escaped.
    static let escapedPassword = PostgresTestServer.password.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: ":", with: "\\:")

    @Test func thePassFileSuppliesThePasswordOverTCPAndTheSocket() throws {
        let user = PostgresTestServer.passwordUsername
        let file = try Self.passFile(
            "127.0.0.1:\(server.port):*:\(user):\(Self.escapedPassword)\n\(server.socketDirectory):*:*:\(user):\(Self.escapedPassword)",
            permissions: 0o600)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = Self.environment(["PGPASSFILE": file.path])
        for text in [
            "postgres://\(user)@\(tcp)/postgres?sslmode=disable",
            "postgres://\(user)@/postgres?host=\(server.socketDirectory)&port=\(server.port)",
        ] {
            let session = try Self.connect(text, environment)
            defer { session.close() }
            #expect(try session.rows("SELECT current_user::text") == [[.text(user)]], "\(text)")
        }
    }

    @Test func aPassFileOthersCanReadIsIgnored() throws {
        let user = PostgresTestServer.passwordUsername
        let file = try Self.passFile("*:*:*:\(user):\(Self.escapedPassword)", permissions: 0o644)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = Self.environment(["PGPASSFILE": file.path])
        let text = "postgres://\(user)@\(tcp)/postgres"
        let settings = try PostgresConnectionSettings(text, environment: environment)
        #expect(settings.warnings.count == 1 && settings.warnings[0].contains("has group or world access"))
        let message = Self.failure(text, environment)
        #expect(message.contains("asks for a password, and none was given"), "\(message)")
    }

    /// Wrong and right passwords, in the URL and in the query, to a role that refuses them and to
    /// one that takes them: no error and no location shows them, raw or percent-encoded.
    @Test func thePasswordIsInNoErrorAndNoLocation() throws {
        let password = PostgresTestServer.password
        let encoded = try #require(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let wrong = "wrong-\(UUID().uuidString)"
        let secrets = [password, encoded, wrong, "s3cr", "et@pa"]
        let user = PostgresTestServer.passwordUsername
        var messages: [String] = []
        for text in [
            "postgres://\(user):\(wrong)@\(tcp)/postgres", "postgres://\(user)@\(tcp)/postgres?password=\(wrong)",
            "postgres://\(tlsUser):\(encoded)@\(tcp)/postgres?sslmode=disable",
            "postgres://\(tlsUser):\(encoded)@localhost:\(server.port)/postgres?sslmode=verify-full&sslrootcert=\(tls.foreignCertificateAuthority)",
            "postgres://\(user):\(encoded)@127.0.0.1:\(try Self.unusedPort())/postgres",
        ] {
            do {
                try Self.connect(text).close()
                Issue.record("\(text) connected")
            } catch {
                messages += ["\(error)", String(reflecting: error), (error as? StoreError)?.message ?? ""]
            }
        }
        #expect(messages.contains { $0.contains("password authentication failed") }, "\(messages)")
        let session = try PostgresSession.connect(to: try #require(URL(string: "postgres://\(user):\(encoded)@\(tcp)/postgres")), logger: Self.logger)
        defer { session.close() }
        #expect(session.location == "postgres://\(user)@\(tcp)/postgres")
        for text in messages + [session.location] {
            #expect(!secrets.contains { text.contains($0) }, "\(text)")
        }
    }

    // MARK: - Ports

    /// A port of 127.0.0.1 that nothing listens on (one the kernel just handed out and took back).
    static func unusedPort() throws -> Int {
        let (descriptor, port) = try bound(listening: false)
        close(descriptor)
        return port
    }

    /// A socket that listens and never accepts: the kernel completes the TCP handshake, and then
    /// nothing answers.
    static func silentListener() throws -> (Int32, Int) {
        try bound(listening: true)
    }

    private static func bound(listening: Bool) throws -> (Int32, Int) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
                    && (!listening || listen(descriptor, 8) == 0)
            }
        }
        guard ready else {
            close(descriptor)
            throw StoreError(.postgres, "cannot bind a socket of 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
