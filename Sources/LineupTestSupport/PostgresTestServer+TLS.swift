import Foundation

/// What the connection tests reach beside the trusted superuser: TLS with a CA of the server's
/// own, roles that only TLS, a password or a client certificate let in, and the Unix socket.
///
/// The certificates are made with the `openssl` command at launch, in `<directory>/tls`: a CA, the
/// server's certificate for `localhost` (DNS:localhost and IP:127.0.0.1) signed by it, a client
/// certificate for ``certificateUsername`` signed by it, and a second CA that signed nothing of
/// the server's. Where `openssl` is not installed the server starts without TLS, and ``tls`` is nil.
extension PostgresTestServer {
    /// The PEM files of the server's TLS.
    public struct TLSFiles: Sendable {
        /// The CA that signed the server's certificate: `sslrootcert` for verify-ca and verify-full.
        public let certificateAuthority: String
        /// A CA that signed nothing of the server's: a check of its certificate against it fails.
        public let foreignCertificateAuthority: String
        /// A client certificate (for ``PostgresTestServer/certificateUsername``) signed by the CA, and its key.
        public let clientCertificate: String
        public let clientKey: String
    }

    /// A role that only TLS connections reach: `hostnossl … reject` in pg_hba.conf, and trusted
    /// over TLS.
    public static let tlsOnlyUsername = "lineup_tls"
    /// A role that must give ``password`` (SCRAM), over TCP and the Unix socket.
    public static let passwordUsername = "lineup_password"
    /// ``passwordUsername``'s password; `:`, `@`, `/` and `\` make it need escaping in a URL and
    /// in a password file.
    public static let password = #"s3cr:et@pa/ss\word"#
    /// A role that logs in with a client certificate (`cert`), over TLS only.
    public static let certificateUsername = "lineup_cert"

    /// The server's TLS files, nil where `openssl` was missing when it started.
    public var tls: TLSFiles? {
        let tls = directory.appending(path: "tls", directoryHint: .isDirectory)
        guard FileManager.default.fileExists(atPath: tls.appending(path: "server.crt").path) else { return nil }
        return TLSFiles(
            certificateAuthority: tls.appending(path: "ca.crt").path, foreignCertificateAuthority: tls.appending(path: "foreign-ca.crt").path,
            clientCertificate: tls.appending(path: "client.crt").path, clientKey: tls.appending(path: "client.key").path)
    }

    /// A second address the server listens on (with TLS), which its certificate does not name:
    /// NIOSSL takes a certificate whose IP address entry is the address connected to, whatever
    /// name was asked for, so a mismatch is only real on an address the certificate lacks.
    public static let unnamedLoopbackAddress = "127.0.0.2"

    /// The directory of the server's Unix socket (`.s.PGSQL.<port>` in it).
    public var socketDirectory: String { directory.path }

    /// The `openssl` on `$PATH`, if any.
    static var opensslExecutable: String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/openssl" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Makes the certificates and puts the test roles' rules first in pg_hba.conf, with
    /// `runScript`, which runs a shell script as the server's user in the server's directory (the
    /// files must be the server's: PostgreSQL refuses a key that another user owns).
    ///
    /// - Returns: The server options that turn TLS on (none without `openssl`).
    static func prepareAccess(
        in directory: URL, runScript: (String) throws(PostgresTestServerError) -> (status: Int32, output: String)
    ) throws(PostgresTestServerError) -> [String] {
        let openssl = opensslExecutable
        let hasTLS = openssl != nil
        // First match wins: these come before initdb's `trust` for everyone.
        var rules = [
            "host all \(passwordUsername) 127.0.0.1/32 scram-sha-256",
            "local all \(passwordUsername) scram-sha-256",
            "hostnossl all \(tlsOnlyUsername) all reject",
            "hostnossl all \(certificateUsername) all reject",
        ]
        if hasTLS {
            rules += [
                "hostssl all \(tlsOnlyUsername) 127.0.0.0/8 trust",
                "hostssl all \(certificateUsername) 127.0.0.0/8 cert",
            ]
        }
        let script = """
            set -e
            { printf '%s\\n' \(rules.map(shellWord).joined(separator: " ")); cat data/pg_hba.conf; } > data/pg_hba.conf.new
            mv data/pg_hba.conf.new data/pg_hba.conf
            """ + (openssl.map(certificateScript) ?? "")
        let result = try runScript(script)
        guard result.status == 0 else {
            throw PostgresTestServerError(
                "making the test certificates or pg_hba.conf's rules failed (exit status \(result.status))", commandOutput: result.output)
        }
        guard hasTLS else { return [] }
        let tls = directory.appending(path: "tls", directoryHint: .isDirectory)
        let files = ["ssl_cert_file": "server.crt", "ssl_key_file": "server.key", "ssl_ca_file": "ca.crt"]
        // After the server's own listen_addresses, which this one replaces. Should the second
        // address not be there, PostgreSQL warns and listens on the first.
        let addresses = "-c listen_addresses=\(shellWord("127.0.0.1,\(unnamedLoopbackAddress)"))"
        return ["-c ssl=on", addresses] + files.sorted { $0.key < $1.key }.map { "-c \(shellWord("\($0.key)=\(tls.appending(path: $0.value).path)"))" }
    }

    /// The shell commands that make the CAs and the certificates (elliptic-curve keys: made in
    /// milliseconds, where RSA keys would slow every test run's start).
    private static func certificateScript(openssl: String) -> String {
        let key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        return """

            mkdir -m 700 tls
            cd tls
            cat > openssl.cnf <<'END'
            [req]
            distinguished_name = name
            prompt = no
            [name]
            [ca]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [server]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost,IP:127.0.0.1
            [client]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = clientAuth
            END
            o=\(shellWord(openssl))
            "$o" req -config openssl.cnf -x509 \(key) -days 30 -subj '/CN=Lineup test CA' -extensions ca -keyout ca.key -out ca.crt 2>&1
            "$o" req -config openssl.cnf -x509 \(key) -days 30 -subj '/CN=Lineup foreign CA' -extensions ca -keyout foreign-ca.key -out foreign-ca.crt 2>&1
            "$o" req -config openssl.cnf -new \(key) -subj '/CN=localhost' -keyout server.key -out server.csr 2>&1
            "$o" x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile openssl.cnf -extensions server -out server.crt 2>&1
            "$o" req -config openssl.cnf -new \(key) -subj '/CN=\(certificateUsername)' -keyout client.key -out client.csr 2>&1
            "$o" x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile openssl.cnf -extensions client -out client.crt 2>&1
            chmod 600 *.key
            """
    }

    /// Creates the roles of ``prepareAccess(in:runScript:)``'s rules, once the server runs.
    func createTestRoles() throws(PostgresTestServerError) {
        let password = Self.password.replacingOccurrences(of: "'", with: "''")
        _ = try psql(
            "CREATE ROLE \(Self.tlsOnlyUsername) LOGIN; CREATE ROLE \(Self.certificateUsername) LOGIN; "
                + "SET password_encryption = 'scram-sha-256'; CREATE ROLE \(Self.passwordUsername) LOGIN PASSWORD '\(password)'",
            database: "postgres")
    }

    private static func shellWord(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
