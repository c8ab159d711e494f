import Foundation

/// The built `lineupd` and `lineup`. SwiftPM puts executables in the same products directory
/// as the test bundle (`.build/<triple>/debug/`), as swift-argument-parser's
/// `AssertExecuteCommand` relies on; the test target depends on both executable targets, so
/// they are built before the tests run.
enum Binaries {
    /// The products directory that holds both executables.
    static let productsDirectory: URL? = {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        // On macOS the tests run inside `LineupPackageTests.xctest`, a bundle beside the products.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        var expanded: [URL] = []
        for candidate in candidates {
            var directory = candidate.standardizedFileURL
            // A runner inside a bundle (`X.xctest/Contents/MacOS/X`) is a few levels down.
            for _ in 0..<4 {
                expanded.append(directory)
                directory.deleteLastPathComponent()
            }
        }
        return expanded.first { directory in
            ["lineupd", "lineup"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: directory.appending(path: $0).path)
            }
        }
    }()

    /// The daemon.
    static var lineupd: URL {
        get throws { try executable("lineupd") }
    }

    /// The command-line tool.
    static var lineup: URL {
        get throws { try executable("lineup") }
    }

    /// The example daemon of `Examples/NoteDaemon`.
    static var noteDaemon: URL {
        get throws { try executable("note-daemon") }
    }

    /// The example service of `Examples/SurfSessions`.
    static var surfSessions: URL {
        get throws { try executable("surf-sessions") }
    }

    private static func executable(_ name: String) throws -> URL {
        guard let productsDirectory else {
            throw HarnessError(
                "no built lineupd and lineup beside the test runner \(Bundle.main.executableURL?.path ?? CommandLine.arguments.first ?? "?")"
            )
        }
        return productsDirectory.appending(path: name)
    }
}
