import Foundation
@testable import LineupStore
import Testing

/// Connection strings read as libpq reads them: URLs and keyword/value strings, over the `PG*`
/// variables, over libpq's defaults, with `.pgpass`. No server: the environment is the test's own.
struct PostgresConnectionSettingsTests {
    /// An environment of the test's own: variables, a home directory, a user, and files with
    /// their permission bits.
    static func environment(
        _ variables: [String: String] = [:], home: String? = "/home/surfer", user: String? = "surfer",
        files: [String: (contents: String, permissions: UInt16)] = [:]
    ) -> PostgresConnectionEnvironment {
        PostgresConnectionEnvironment(
            variables: variables, homeDirectory: home, userName: user,
            fileStatus: { path in files[path].map { .init(permissions: $0.permissions) } },
            readFile: { path in files[path].map { Data($0.contents.utf8) } })
    }

    static func settings(_ text: String, _ environment: PostgresConnectionEnvironment = environment()) throws
        -> PostgresConnectionSettings
    {
        try PostgresConnectionSettings(text, environment: environment)
    }

    /// The message of the error that reading `text` throws.
    static func failure(_ text: String, _ environment: PostgresConnectionEnvironment = environment()) -> String {
        do {
            _ = try settings(text, environment)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    // MARK: - URLs

    @Test func aURLGivesUserPasswordHostPortAndDatabaseDecoded() throws {
        let settings = try Self.settings("postgres://surf%20er:p%40ss%3Aw%2Frd@db.example:6543/surf%2Fjournal")
        #expect(settings.hosts == [.init(endpoint: .tcp(name: "db.example", address: nil), port: 6543, password: .init("p@ss:w/rd"))])
        #expect(settings.user == "surf er")
        #expect(settings.database == "surf/journal")
        #expect(settings.sslMode == .prefer)
        #expect(settings.targetSessionAttributes == .any)
        #expect(settings.connectTimeout == .seconds(10))
        #expect(settings.location == "postgres://surf%20er@db.example:6543/surf%2Fjournal")
    }

    @Test func aPercentEncodedSocketDirectoryAsTheHostIsAUnixSocket() throws {
        let settings = try Self.settings("postgresql://%2Fvar%2Frun%2Fpostgresql/lineup")
        #expect(settings.hosts.map(\.endpoint) == [.socket(directory: "/var/run/postgresql")])
        #expect(settings.hosts[0].socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(settings.database == "lineup")
    }

    @Test func severalHostsEachWithItsPortOrTheDefault() throws {
        let settings = try Self.settings("postgresql://h1:5432,h2:5433,[::1],[fe80::1]:7000/db")
        #expect(settings.hosts.map(\.endpoint) == [
            .tcp(name: "h1", address: nil), .tcp(name: "h2", address: nil), .tcp(name: "::1", address: nil),
            .tcp(name: "fe80::1", address: nil),
        ])
        #expect(settings.hosts.map(\.port) == [5432, 5433, 5432, 7000])
        #expect(settings.hosts.map(\.description) == ["h1:5432", "h2:5433", "[::1]:5432", "[fe80::1]:7000"])
    }

    @Test func queryParametersGiveEveryOptionAndOverrideTheRest() throws {
        let files = ["/etc/ca.pem": ("", UInt16(0o644)), "/etc/client.pem": ("", 0o644), "/etc/client.key": ("", 0o600)]
        let settings = try Self.settings(
            "postgresql://ignored:1/nodb?host=%2Ftmp%2Fsockets,db2&port=6000,6001&user=app&password=s%26cret&dbname=surf"
                + "&sslmode=verify-ca&sslrootcert=/etc/ca.pem&sslcert=/etc/client.pem&sslkey=/etc/client.key"
                + "&target_session_attrs=read-write&application_name=lineupd%20test&connect_timeout=7&options=-c%20geqo%3Doff",
            Self.environment(files: files))
        #expect(settings.hosts == [
            .init(endpoint: .socket(directory: "/tmp/sockets"), port: 6000, password: .init("s&cret")),
            .init(endpoint: .tcp(name: "db2", address: nil), port: 6001, password: .init("s&cret")),
        ])
        #expect(settings.hosts[0].socketPath == "/tmp/sockets/.s.PGSQL.6000")
        #expect(settings.user == "app" && settings.database == "surf")
        #expect(settings.sslMode == .verifyCA)
        #expect(settings.rootCertificates == .file("/etc/ca.pem"))
        #expect(settings.clientCertificate == .init(certificate: "/etc/client.pem", key: "/etc/client.key"))
        #expect(settings.targetSessionAttributes == .readWrite)
        #expect(settings.applicationName == "lineupd test")
        #expect(settings.connectTimeout == .seconds(7))
        #expect(settings.serverOptions == "-c geqo=off")
        #expect(!settings.location.contains("s%26cret") && settings.location.contains("user=app"))
    }

    @Test func everySSLModeAndTargetSessionAttributeIsRead() throws {
        for mode in PostgresConnectionSettings.SSLMode.allCases {
            let files = ["/home/surfer/.postgresql/root.crt": ("", UInt16(0o644))]
            #expect(try Self.settings("postgres://h/db?sslmode=\(mode.rawValue)", Self.environment(files: files)).sslMode == mode)
        }
        for attributes in PostgresConnectionSettings.TargetSessionAttributes.allCases {
            let settings = try Self.settings("postgres://h/db?target_session_attrs=\(attributes.rawValue)")
            #expect(settings.targetSessionAttributes == attributes)
        }
        #expect(try Self.settings("postgres://h/db?ssl=true").sslMode == .require, "libpq's JDBC spelling")
    }

    @Test func hostaddrConnectsThereWhileTheHostNameIsWhatTheCertificateMustName() throws {
        let settings = try Self.settings("postgres:///db?host=wrong.example,b&hostaddr=127.0.0.1,127.0.0.2")
        #expect(settings.hosts.map(\.endpoint) == [
            .tcp(name: "wrong.example", address: "127.0.0.1"), .tcp(name: "b", address: "127.0.0.2"),
        ])
        #expect(settings.hosts[0].description == "wrong.example (127.0.0.1):5432")
    }

    // MARK: - Keyword/value strings

    @Test func aKeywordValueStringWithLibpqQuoting() throws {
        let settings = try Self.settings(
            #"host=/var/run/postgresql dbname = 'surf journal'  user=x sslmode=verify-full password='it\'s a \\ secret'"#
                + #" application_name=back\ slash"#)
        #expect(settings.hosts == [.init(endpoint: .socket(directory: "/var/run/postgresql"), port: 5432, password: .init(#"it's a \ secret"#))])
        #expect(settings.database == "surf journal")
        #expect(settings.user == "x")
        #expect(settings.sslMode == .verifyFull)
        #expect(settings.applicationName == "back slash")
        #expect(settings.location == "host=/var/run/postgresql dbname='surf journal' user=x sslmode=verify-full application_name='back slash'")
    }

    @Test func aKeywordValueStringsMistakesAreNamed() {
        #expect(Self.failure("host=a dbname").contains(#"missing "=" after "dbname""#))
        #expect(Self.failure("host='a").contains("unterminated quoted string"))
        #expect(Self.failure("host=a color=blue").contains(#"invalid connection option "color""#))
    }

    // MARK: - Environment and defaults

    @Test func theEnvironmentFillsWhatTheURLLeavesOut() throws {
        let environment = Self.environment([
            "PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "envuser", "PGPASSWORD": "envpass", "PGDATABASE": "envdb",
            "PGSSLMODE": "require", "PGAPPNAME": "envapp", "PGCONNECT_TIMEOUT": "30", "PGTARGETSESSIONATTRS": "read-write",
        ])
        let fromEnvironment = try Self.settings("postgres://", environment)
        #expect(fromEnvironment.hosts == [.init(endpoint: .tcp(name: "envhost", address: nil), port: 6000, password: .init("envpass"))])
        #expect(fromEnvironment.user == "envuser" && fromEnvironment.database == "envdb")
        #expect(fromEnvironment.sslMode == .require && fromEnvironment.applicationName == "envapp")
        #expect(fromEnvironment.connectTimeout == .seconds(30) && fromEnvironment.targetSessionAttributes == .readWrite)

        let overridden = try Self.settings("postgres://u:p@h:1/d?sslmode=disable&application_name=a&connect_timeout=3", environment)
        #expect(overridden.hosts == [.init(endpoint: .tcp(name: "h", address: nil), port: 1, password: .init("p"))])
        #expect(overridden.user == "u" && overridden.database == "d" && overridden.sslMode == .disable)
        #expect(overridden.applicationName == "a" && overridden.connectTimeout == .seconds(3))
    }

    @Test func libpqDefaultsWithNothingGiven() throws {
        let settings = try Self.settings("postgresql://", Self.environment(user: "surfer"))
        #expect(settings.hosts == [.init(endpoint: .socket(directory: "/var/run/postgresql"), port: 5432)])
        #expect(settings.user == "surfer" && settings.database == "surfer")
        #expect(settings.sslMode == .prefer)
        #expect(settings.rootCertificates == PostgresConnectionSettings.RootCertificates.none)
        #expect(settings.clientCertificate == nil)
        #expect(settings.applicationName == nil)
        #expect(Self.failure("postgresql://", Self.environment(user: nil)).contains("no user name"))
    }

    @Test func connectTimeoutsAsLibpqReadsThem() throws {
        #expect(try Self.settings("postgres://h/d?connect_timeout=0").connectTimeout == nil, "0: no limit")
        #expect(try Self.settings("postgres://h/d?connect_timeout=-5").connectTimeout == nil)
        #expect(try Self.settings("postgres://h/d?connect_timeout=1").connectTimeout == .seconds(2), "libpq's minimum")
        #expect(try Self.settings("postgres://h/d?connect_timeout=%2012%20").connectTimeout == .seconds(12))
        #expect(Self.failure("postgres://h/d?connect_timeout=soon").contains(#"invalid integer value "soon""#))
    }

    @Test func mistakesAreNamed() {
        #expect(Self.failure("postgres://h/d?sslmode=sometimes").contains(#"invalid sslmode value: "sometimes""#))
        #expect(Self.failure("postgres://h/d?target_session_attrs=fast").contains(#"invalid target_session_attrs value: "fast""#))
        #expect(Self.failure("postgres://h1,h2,h3/d?port=1,2").contains("could not match 2 port numbers to 3 hosts"))
        #expect(Self.failure("postgres://h:99999/d").contains("invalid port number"))
        #expect(Self.failure("postgres://h/d?color=blue").contains(#"invalid connection option "color""#))
        #expect(Self.failure("postgres://h/d?sslmode").contains("has no \"=\""))
        #expect(Self.failure("postgres://[::1/d").contains("no closing"))
        #expect(Self.failure("postgres://h/d%zz").contains("invalid percent-encoding in the database name"))
    }

    @Test func harmlessLibpqOptionsAreIgnoredWithAWarning() throws {
        let settings = try Self.settings("postgres://h/d?keepalives=1&keepalives_idle=30")
        #expect(settings.warnings.count == 2)
        #expect(settings.warnings.allSatisfy { $0.contains("ignored the connection option") })
    }

    // MARK: - Certificates

    @Test func verifyModesLookForRootCertificatesInTheHomeDirectory() throws {
        let root = "/home/surfer/.postgresql/root.crt"
        let withRoot = Self.environment(files: [root: ("", 0o644)])
        #expect(try Self.settings("postgres://h/d?sslmode=verify-full", withRoot).rootCertificates == .file(root))
        let missing = Self.failure("postgres://h/d?sslmode=verify-ca")
        #expect(missing.contains(#"root certificate file "/home/surfer/.postgresql/root.crt" does not exist"#), "\(missing)")
        #expect(Self.failure("postgres://h/d?sslmode=verify-full", Self.environment(home: nil)).contains("no home directory"))
        #expect(Self.failure("postgres://h/d?sslmode=verify-full&sslrootcert=/nowhere.pem").contains("/nowhere.pem"))
    }

    @Test func requireChecksTheChainWhenRootCertificatesAreThereAsLibpqDoes() throws {
        let root = "/home/surfer/.postgresql/root.crt"
        #expect(try Self.settings("postgres://h/d?sslmode=require").rootCertificates == PostgresConnectionSettings.RootCertificates.none)
        #expect(try Self.settings("postgres://h/d?sslmode=require", Self.environment(files: [root: ("", 0o644)])).rootCertificates == .file(root))
        let given = Self.environment(files: ["/ca.pem": ("", 0o644)])
        #expect(try Self.settings("postgres://h/d?sslmode=require&sslrootcert=/ca.pem", given).rootCertificates == .file("/ca.pem"))
    }

    @Test func sslrootcertSystemMeansTheSystemStoreAndVerifyFull() throws {
        let settings = try Self.settings("postgres://h/d?sslrootcert=system")
        #expect(settings.rootCertificates == .system && settings.sslMode == .verifyFull)
        #expect(Self.failure("postgres://h/d?sslrootcert=system&sslmode=require").contains(#"weak sslmode "require""#))
    }

    @Test func aUnixSocketNeedsNoCertificate() throws {
        let settings = try Self.settings("postgres:///d?host=/run/pg&sslmode=verify-full")
        #expect(settings.rootCertificates == PostgresConnectionSettings.RootCertificates.none)
    }

    @Test func theClientCertificateIsSentWhenItsFileIsThereWithAPrivateKey() throws {
        let certificate = "/home/surfer/.postgresql/postgresql.crt"
        let key = "/home/surfer/.postgresql/postgresql.key"
        let both = Self.environment(files: [certificate: ("", 0o644), key: ("", 0o600)])
        #expect(try Self.settings("postgres://h/d", both).clientCertificate == .init(certificate: certificate, key: key))
        let openKey = Self.environment(files: [certificate: ("", 0o644), key: ("", 0o640)])
        #expect(Self.failure("postgres://h/d", openKey).contains("has group or world access"))
        let noKey = Self.environment(files: [certificate: ("", 0o644)])
        #expect(Self.failure("postgres://h/d", noKey).contains("certificate present, but not private key file"))
        #expect(try Self.settings("postgres://h/d?sslmode=disable", noKey).clientCertificate == nil)
    }

    // MARK: - The password file

    static let passFileText = """
        # hostname:port:database:username:password
        db.example:5432:surf:app:first
        db.example:5432:surf:app:second, never reached
        *:6000:*:app:any\\:host\\\\6000
        localhost:5432:*:app:local
        /tmp/sockets:*:*:app:socket
        other\\:host:5432:*:*:escaped
        """

    static func withPassFile(_ permissions: UInt16 = 0o600, path: String = "/home/surfer/.pgpass", _ variables: [String: String] = [:])
        -> PostgresConnectionEnvironment
    {
        environment(variables, files: [path: (passFileText, permissions)])
    }

    @Test func thePassFileGivesThePasswordOfTheFirstLineThatMatches() throws {
        let password = { (text: String) throws in try Self.settings(text, Self.withPassFile()).hosts.map(\.password?.text) }
        #expect(try password("postgres://app@db.example/surf") == ["first"])
        #expect(try password("postgres://app@db.example:5433/surf") == [nil])
        #expect(try password("postgres://app@anywhere:6000/x") == [#"any:host\6000"#], "wildcards, and \\: and \\\\ unescaped")
        #expect(try password("host=other:host user=someone dbname=x") == ["escaped"], "\\: in a field matches a colon")
    }

    @Test func localhostInThePassFileMatchesTheDefaultSocketAndOtherSocketsByTheirDirectory() throws {
        let password = { (text: String) throws in try Self.settings(text, Self.withPassFile()).hosts.map(\.password?.text) }
        #expect(try password("postgres://app@/d") == ["local"], "no host: the default socket directory")
        #expect(try password("postgres://app@%2Fvar%2Frun%2Fpostgresql/d") == ["local"])
        #expect(try password("postgres://app@localhost/d") == ["local"])
        #expect(try password("postgres://app@/d?host=/tmp/sockets") == ["socket"])
        #expect(try password("postgres://app@/d?host=/elsewhere") == [nil])
    }

    @Test func eachHostGetsItsOwnLineOfThePassFile() throws {
        let settings = try Self.settings("postgres://app@db.example:5432,far:6000/surf", Self.withPassFile())
        #expect(settings.hosts.map(\.password?.text) == ["first", #"any:host\6000"#])
    }

    @Test func aPasswordGivenHidesThePassFile() throws {
        let settings = try Self.settings("postgres://app:mine@db.example/surf", Self.withPassFile())
        #expect(settings.hosts.map(\.password?.text) == ["mine"])
        let fromEnvironment = try Self.settings("postgres://app@db.example/surf", Self.withPassFile(0o600, ["PGPASSWORD": "env"]))
        #expect(fromEnvironment.hosts.map(\.password?.text) == ["env"])
    }

    @Test func aPassFileOthersCanReadIsIgnoredWithAWarning() throws {
        let settings = try Self.settings("postgres://app@db.example/surf", Self.withPassFile(0o644))
        #expect(settings.hosts.map(\.password) == [nil])
        #expect(settings.warnings == [
            #"password file "/home/surfer/.pgpass" has group or world access; permissions should be u=rw (0600) or less; it is ignored"#
        ])
    }

    @Test func PGPASSFILEAndPassfileNameTheFile() throws {
        let elsewhere = Self.withPassFile(0o600, path: "/etc/lineup/pgpass", ["PGPASSFILE": "/etc/lineup/pgpass"])
        #expect(try Self.settings("postgres://app@db.example/surf", elsewhere).hosts.map(\.password?.text) == ["first"])
        let option = Self.withPassFile(0o600, path: "/etc/lineup/pgpass")
        let settings = try Self.settings("postgres://app@db.example/surf?passfile=/etc/lineup/pgpass", option)
        #expect(settings.hosts.map(\.password?.text) == ["first"])
    }

    // MARK: - As Foundation URLs

    /// Foundation refuses several hosts with their ports; the URL it is given instead moves them
    /// into the query, and reads as the same connection.
    @Test func severalHostsWithPortsBecomeAURLThatReadsTheSame() throws {
        let text = "postgresql://app:pw@h1:5432,[::1]:5433/db?sslmode=require&host=h3,h4"
        #expect(URL(string: text) == nil)
        let url = try #require(PostgresConnectionSettings.url(libpqURL: text))
        #expect(url.absoluteString == "postgresql://app:pw@/db?host=h1,::1&port=5432,5433&sslmode=require&host=h3,h4")
        var rewritten = try Self.settings(url.absoluteString)
        rewritten.location = try Self.settings(text).location
        #expect(try rewritten == Self.settings(text))
        #expect(rewritten.hosts.map(\.description) == ["h3:5432", "h4:5433"], "the query's hosts, with the ports of the hosts they replace")
        let withoutPath = try #require(PostgresConnectionSettings.url(libpqURL: "postgres://h1:1,h2:2"))
        #expect(withoutPath.absoluteString == "postgres:///?host=h1,h2&port=1,2")
        #expect(try Self.settings(withoutPath.absoluteString).hosts.map(\.description) == ["h1:1", "h2:2"])
        #expect(PostgresConnectionSettings.url(libpqURL: "postgres://u@db/surf")?.absoluteString == "postgres://u@db/surf")
        #expect(PostgresConnectionSettings.url(libpqURL: "mysql://db/surf") == nil)
    }

    // MARK: - Redaction

    @Test func theLocationNeverHoldsThePassword() throws {
        let cases = [
            ("postgres://app:hunter2@db/surf", "postgres://app@db/surf"),
            ("postgres://app:hunter2@db/surf?password=hunter2&sslmode=require", "postgres://app@db/surf?sslmode=require"),
            ("postgres://db/surf?pass%77ord=hunter2", "postgres://db/surf"),
            ("postgres://app@db/surf", "postgres://app@db/surf"),
            ("postgresql://app:hunter2@h1:5432,h2:5433/surf", "postgresql://app@h1:5432,h2:5433/surf"),
            ("host=db password=hunter2 dbname=surf", "host=db dbname=surf"),
            ("host=db password='hunter2 x' dbname=surf", "host=db dbname=surf"),
        ]
        for (text, location) in cases {
            let settings = try Self.settings(text)
            #expect(settings.location == location)
            #expect(!"\(settings)".contains("hunter2") && !String(reflecting: settings).contains("hunter2"))
            var dumped = ""
            dump(settings, to: &dumped)
            #expect(!dumped.contains("hunter2"), "\(dumped)")
        }
        #expect(PostgresConnectionSettings.redactedLocation(of: "host='unterminated password=hunter2") == "(a connection string that cannot be read)")
        #expect(PostgresConnectionSettings.redactedLocation(of: "surf.sqlite") == "surf.sqlite", "no URL, no keyword: nothing to hide")
        #expect(PostgresConnectionSettings.redactedLocation(of: "mysql://app:hunter2@db/surf") == "mysql://app@db/surf")
    }

    @Test func errorsNeverHoldThePassword() {
        for text in [
            "postgres://app:hunt%zzer2@db/surf", "postgres://app:hunter2@db/surf?sslmode=sometimes",
            "postgres://app:hunter2@db:port/surf", "postgres://app:hunter2@db/surf?password=hunter2&color=blue",
            "postgres://app@db/surf?password=hunt%zzer2", "host=db password=hunter2 color=blue",
            "postgres://app:hunter2@db/surf?sslmode=verify-full",
        ] {
            let message = Self.failure(text)
            #expect(message != "no error", "\(text)")
            #expect(!message.contains("hunter2") && !message.contains("hunt%zzer2") && !message.contains("zzer2"), "\(message)")
        }
    }
}
