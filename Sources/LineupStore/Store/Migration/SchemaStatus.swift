/// Where one database's schema stands, read without changing anything: what
/// `lineup migrate status` shows.
package struct SchemaStatus: Sendable {
    /// What the versions are of ("store schema", "job-table schema").
    package let subject: String
    /// The database: a file's path, or a URL without its password.
    package let location: String
    /// The version the database is at; 0 when it has none of the schema yet.
    package let version: Int
    /// The newest version this Lineup knows.
    package let latestVersion: Int
    /// How the version was found, when a reader should know: tables made before versions were
    /// recorded, or no store yet.
    package let note: String?
    /// The migrations `lineup migrate up` would run; empty when the database is up to date, newer
    /// than this Lineup, or has nothing to migrate.
    package let pending: [SchemaMigration]

    package init(
        subject: String, location: String, version: Int, latestVersion: Int, note: String? = nil, pending: [SchemaMigration]
    ) {
        self.subject = subject
        self.location = location
        self.version = version
        self.latestVersion = latestVersion
        self.note = note
        self.pending = pending
    }

    /// The status of a database at `version` of `migrations`.
    package init(_ migrations: SchemaMigrations, location: String, version: Int, note: String? = nil) {
        self.init(
            subject: migrations.subject, location: location, version: version, latestVersion: migrations.latestVersion,
            note: note, pending: migrations.migrations.filter { $0.version > version })
    }

    /// Whether a newer Lineup wrote the database: this one refuses to open it.
    package var isNewer: Bool { version > latestVersion }
}
