import Foundation
import LineupTestSupport
import Testing

/// The launcher the PostgreSQL store's tests start their server with. Skipped where PostgreSQL
/// is not installed, unless `LINEUP_REQUIRE_POSTGRES=1` (CI) makes that a failure.
@Suite(
    .enabled(
        if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired,
        "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresTestServerTests {
    @Test func theServerStartsOnLoopbackAndIsSharedByTheProcess() throws {
        let server = try PostgresTestServer.shared()
        #expect(server.host == "127.0.0.1")
        #expect((1...65_535).contains(server.port))
        #expect(server.username == "lineup")
        #expect(FileManager.default.fileExists(atPath: server.directory.appending(path: "data/PG_VERSION").path))
        #expect(try PostgresTestServer.shared() === server)
    }

    @Test func createDatabaseGivesANewNameEachTime() throws {
        let server = try PostgresTestServer.shared()
        let first = try server.createDatabase()
        let second = try server.createDatabase()
        defer {
            try? server.dropDatabase(first)
            try? server.dropDatabase(second)
        }
        #expect(first != second)
        #expect(first.hasPrefix("lineup_test_") && second.hasPrefix("lineup_test_"))
        let databases = try server.psql("SELECT datname FROM pg_database", database: "postgres")
            .split(separator: "\n").map(String.init)
        #expect(databases.contains(first) && databases.contains(second))
    }

    @Test func aNewDatabaseIsReachableWithPsqlAndEmpty() throws {
        let server = try PostgresTestServer.shared()
        let database = try server.createDatabase()
        defer { try? server.dropDatabase(database) }
        #expect(try server.psql("SELECT 1", database: database) == "1")
        #expect(try server.psql("SELECT current_database()", database: database) == database)
        let tables = try server.psql(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: database)
        #expect(tables == "0")
        #expect(server.url(database: database) == "postgres://lineup@127.0.0.1:\(server.port)/\(database)?sslmode=disable")
    }

    @Test func aDroppedDatabaseCannotBeReached() throws {
        let server = try PostgresTestServer.shared()
        let database = try server.createDatabase()
        try server.dropDatabase(database)
        let error = #expect(throws: PostgresTestServerError.self) {
            try server.psql("SELECT 1", database: database)
        }
        #expect(error?.commandOutput.contains("does not exist") == true, "\(String(describing: error))")
    }
}
