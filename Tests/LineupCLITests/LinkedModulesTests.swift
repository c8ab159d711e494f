import Foundation
import Testing

/// What a SQLite app links: `Examples/NoteDaemon` imports LineupStore and LineupJobs only, and its
/// binary must hold nothing of NIO, PostgresNIO or Hummingbird (LineupPostgres and LineupServer
/// keep them), while `lineupd`, which links both, holds all of them.
///
/// A module's code in a binary brings its name along, in its mangled symbols and (in this debug
/// build) its debug information, so the name's absence means the module was not linked.
@Suite("Linked modules")
struct LinkedModulesTests {
    static let networkingModules = ["PostgresNIO", "NIOCore", "NIOPosix", "NIOSSL", "Hummingbird"]

    @Test("an app on LineupStore and LineupJobs links no NIO, PostgresNIO or Hummingbird")
    func aSQLiteAppLinksNoNetworking() throws {
        let linked = try Self.modules(Self.networkingModules, namedIn: Binaries.noteDaemon)
        #expect(linked.isEmpty, "note-daemon links \(linked.sorted())")
    }

    /// The check's own proof: the names are found where the modules are linked.
    @Test("lineupd, which serves HTTP and opens PostgreSQL, links them all")
    func theDaemonLinksThem() throws {
        let linked = try Self.modules(Self.networkingModules, namedIn: Binaries.lineupd)
        #expect(linked == Set(Self.networkingModules))
    }

    /// Which of `names` occur in the bytes of the file at `url`.
    static func modules(_ names: [String], namedIn url: URL) throws -> Set<String> {
        let bytes = try Data(contentsOf: url, options: .alwaysMapped)
        return Set(names.filter { bytes.range(of: Data($0.utf8)) != nil })
    }
}
