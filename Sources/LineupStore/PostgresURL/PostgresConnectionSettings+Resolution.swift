/// From libpq's options to settings, as libpq's `connectOptions2` does it: each option not given
/// takes its `PG*` variable, then libpq's default; the host list is matched with the port and
/// `hostaddr` lists; a host without a password gets one from the password file.
extension PostgresConnectionSettings {
    /// The options Lineup reads, each with the environment variable beneath it.
    static let environmentVariables: [String: String] = [
        "host": "PGHOST", "hostaddr": "PGHOSTADDR", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD",
        "dbname": "PGDATABASE", "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT",
        "sslkey": "PGSSLKEY", "application_name": "PGAPPNAME", "connect_timeout": "PGCONNECT_TIMEOUT",
        "target_session_attrs": "PGTARGETSESSIONATTRS", "passfile": "PGPASSFILE", "options": "PGOPTIONS",
    ]
    /// Read, without a variable beneath.
    static let optionsWithoutVariable: Set<String> = ["fallback_application_name"]
    /// libpq's options that tune TCP or TLS in ways that change no outcome here: accepted, so that
    /// a string written for libpq still works, and named in a warning. Any other option is refused,
    /// rather than ignored: ignoring `gssencmode=require` or `sslpassword` would connect otherwise
    /// than the string says.
    static let ignoredOptions: Set<String> = [
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "sslsni",
        "sslcompression",
    ]

    init(options list: [(String, String)], location: String, environment: PostgresConnectionEnvironment) throws(ParseError) {
        var given: [String: String] = [:]
        var ignored: [String] = []
        for (keyword, value) in list {
            if Self.environmentVariables[keyword] != nil || Self.optionsWithoutVariable.contains(keyword) {
                given[keyword] = value
            } else if Self.ignoredOptions.contains(keyword) {
                if !ignored.contains(keyword) { ignored.append(keyword) }
            } else {
                throw ParseError("invalid connection option \"\(keyword)\"")
            }
        }
        // As libpq: an option given, even empty, hides its variable; empty then means the default.
        func option(_ keyword: String) -> String? {
            let value = given[keyword] ?? Self.environmentVariables[keyword].flatMap { environment.variables[$0] }
            return value?.isEmpty == false ? value : nil
        }

        var hosts = try Self.hosts(host: option("host"), hostaddr: option("hostaddr"), port: option("port"))
        guard let user = option("user") ?? environment.userName else {
            throw ParseError("no user name given, and the operating system's user has no name to use")
        }
        let database = option("dbname") ?? user
        let rootCertificateOption = option("sslrootcert")
        var sslMode = Self.SSLMode.prefer
        if let text = option("sslmode") {
            guard let mode = SSLMode(rawValue: text) else { throw ParseError("invalid sslmode value: \"\(text)\"") }
            sslMode = mode
        } else if rootCertificateOption == "system" {
            // The system's roots trust any public server: only its name makes the check worth it.
            sslMode = .verifyFull
        }
        if rootCertificateOption == "system", sslMode != .verifyFull {
            throw ParseError("weak sslmode \"\(sslMode.rawValue)\" may not be used with sslrootcert=system (use \"verify-full\")")
        }
        var targetSessionAttributes = TargetSessionAttributes.any
        if let text = option("target_session_attrs") {
            guard let attributes = TargetSessionAttributes(rawValue: text) else {
                throw ParseError("invalid target_session_attrs value: \"\(text)\"")
            }
            targetSessionAttributes = attributes
        }
        var connectTimeout: Duration? = Self.defaultConnectTimeout
        if let text = option("connect_timeout") {
            guard let seconds = Int(text.trimmingSpaces) else {
                throw ParseError("invalid integer value \"\(text)\" for connection option \"connect_timeout\"")
            }
            // libpq: 0 or less waits without limit, and 1 s is taken as 2 (too short to be meant).
            connectTimeout = seconds <= 0 ? nil : .seconds(max(seconds, 2))
        }

        var warnings = ignored.map { "ignored the connection option \"\($0)\", which Lineup does not use" }
        if let password = option("password") {
            for index in hosts.indices { hosts[index].password = PostgresPassword(password) }
        } else if let path = option("passfile") ?? environment.homeDirectory.map({ "\($0)/.pgpass" }) {
            let (passFile, warning) = PassFile.load(path, environment: environment)
            warnings += warning.map { [$0] } ?? []
            for index in hosts.indices {
                hosts[index].password = passFile?.password(
                    host: Self.passFileHostName(of: hosts[index]), port: String(hosts[index].port), database: database, user: user
                ).map(PostgresPassword.init)
            }
        }

        self.init(
            hosts: hosts, user: user, database: database, sslMode: sslMode, targetSessionAttributes: targetSessionAttributes,
            connectTimeout: connectTimeout, location: location)
        self.applicationName = option("application_name") ?? option("fallback_application_name")
        self.serverOptions = option("options")
        self.warnings = warnings
        // libpq never asks for TLS on a Unix socket, so it looks for no certificate either.
        let usesTCP = hosts.contains { if case .tcp = $0.endpoint { true } else { false } }
        if sslMode != .disable, usesTCP {
            self.rootCertificates = try Self.rootCertificates(option: rootCertificateOption, sslMode: sslMode, environment: environment)
            self.clientCertificate = try Self.clientCertificate(
                certificate: option("sslcert"), key: option("sslkey"), environment: environment)
        }
    }

    /// The hosts, each with its port (one port for all, or one each) and `hostaddr` (one each).
    private static func hosts(host: String?, hostaddr: String?, port: String?) throws(ParseError) -> [Host] {
        let names = host.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        let addresses = hostaddr.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        if !names.isEmpty, !addresses.isEmpty, names.count != addresses.count {
            throw ParseError("could not match \(names.count) host names to \(addresses.count) hostaddr values")
        }
        let count = max(names.count, addresses.count, 1)
        let ports = port.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        if ports.count > 1, ports.count != count {
            throw ParseError("could not match \(ports.count) port numbers to \(count) hosts")
        }
        return try (0..<count).map { index throws(ParseError) in
            let name = index < names.count ? names[index] : ""
            let address = index < addresses.count ? addresses[index] : ""
            let portText = ports.count == 1 ? ports[0] : index < ports.count ? ports[index] : ""
            var port = defaultPort
            if !portText.isEmpty {
                // The text is not repeated: in a URL whose password holds a "/", what libpq
                // reads as the port is a piece of the password.
                guard let number = Int(portText.trimmingSpaces), (1...65_535).contains(number) else {
                    throw ParseError("invalid port number (for host \(index + 1) of \(count))")
                }
                port = number
            }
            let endpoint: Host.Endpoint =
                if !address.isEmpty {
                    .tcp(name: name, address: address)
                } else if name.hasPrefix("/") {
                    .socket(directory: name)
                } else if !name.isEmpty {
                    .tcp(name: name, address: nil)
                } else {
                    .socket(directory: defaultSocketDirectory)
                }
            return Host(endpoint: endpoint, port: port)
        }
    }

    /// The name a password file's line must match for `host`: its name (else its address), and
    /// `localhost` for the default socket directory.
    static func passFileHostName(of host: Host) -> String {
        switch host.endpoint {
        case let .tcp(name, address):
            return name.isEmpty ? (address ?? "localhost") : name
        case let .socket(directory):
            return directory == defaultSocketDirectory ? "localhost" : directory
        }
    }

    private static func rootCertificates(
        option: String?, sslMode: SSLMode, environment: PostgresConnectionEnvironment
    ) throws(ParseError) -> RootCertificates {
        if option == "system" { return .system }
        let path = option ?? environment.homeDirectory.map { "\($0)/.postgresql/root.crt" }
        if let path, environment.fileStatus(path) != nil { return .file(path) }
        guard sslMode == .verifyCA || sslMode == .verifyFull else { return .none }
        let remedy =
            "either provide the file, use the system's trusted roots with sslrootcert=system, or change sslmode to disable server certificate verification"
        guard let path else {
            throw ParseError("no home directory to find the root certificate file ~/.postgresql/root.crt in; \(remedy)")
        }
        throw ParseError("root certificate file \"\(path)\" does not exist; \(remedy)")
    }

    /// The client certificate, when its file is there (libpq sends none otherwise), with its key,
    /// which only its owner may read.
    private static func clientCertificate(
        certificate: String?, key: String?, environment: PostgresConnectionEnvironment
    ) throws(ParseError) -> ClientCertificate? {
        let home = environment.homeDirectory
        guard let certificatePath = certificate ?? home.map({ "\($0)/.postgresql/postgresql.crt" }),
            environment.fileStatus(certificatePath) != nil
        else { return nil }
        let keyPath = key ?? home.map { "\($0)/.postgresql/postgresql.key" } ?? ""
        guard let status = environment.fileStatus(keyPath) else {
            throw ParseError("certificate present, but not private key file \"\(keyPath)\"")
        }
        // As libpq: its owner's alone, or also its group's to read when root owns it (a key that
        // a configuration tool manages).
        let open = status.ownerID == 0 ? status.permissions & 0o037 : status.permissions & 0o077
        guard status.isRegularFile, open == 0 else {
            throw ParseError(
                "private key file \"\(keyPath)\" has group or world access; file must have permissions u=rw (0600) or less if owned by the current user, or permissions u=rw,g=r (0640) or less if owned by root"
            )
        }
        return ClientCertificate(certificate: certificatePath, key: keyPath)
    }
}

extension String {
    /// Without the spaces and tabs around it, as libpq's `parse_int_param` reads numbers.
    fileprivate var trimmingSpaces: Substring {
        var text = self[...]
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
