import Foundation
import LineupSpool
import Testing

@Suite("Path policy")
struct PathPolicyTests {
    /// in/ (with obs/42002.rss, a link inside, links out), out/ (with a link out), and
    /// secret/ beside them.
    func withDirectories(_ body: (PathPolicy, _ input: URL, _ output: URL, _ secret: URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let manager = FileManager.default
            let input = directory.appending(path: "in")
            let output = directory.appending(path: "out")
            let secret = directory.appending(path: "secret")
            for folder in [input.appending(path: "obs"), output.appending(path: "reports"), secret] {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            try write("<rss/>", to: input.appending(path: "obs/42002.rss"))
            try write("secret", to: secret.appending(path: "key"))
            try manager.createSymbolicLink(atPath: input.appending(path: "latest.rss").path, withDestinationPath: "obs/42002.rss")
            try manager.createSymbolicLink(atPath: input.appending(path: "leak.rss").path, withDestinationPath: secret.appending(path: "key").path)
            try manager.createSymbolicLink(atPath: input.appending(path: "elsewhere").path, withDestinationPath: "../secret")
            try manager.createSymbolicLink(atPath: output.appending(path: "elsewhere").path, withDestinationPath: secret.path)
            try manager.createSymbolicLink(atPath: output.appending(path: "key.csv").path, withDestinationPath: secret.appending(path: "key").path)
            try await body(PathPolicy(inputDirectory: input, outputDirectory: output), input, output, secret)
        }
    }

    @Test("a relative input path resolves inside the input directory")
    func resolvesInput() async throws {
        try await withDirectories { policy, input, _, _ in
            let plain = try policy.resolveInput("obs/42002.rss")
            #expect(plain.path == input.appending(path: "obs/42002.rss").path)
            let withDots = try policy.resolveInput("./obs//42002.rss")
            #expect(withDots.path == input.appending(path: "obs/42002.rss").path)
            let throughParent = try policy.resolveInput("obs/../obs/42002.rss")
            #expect(throughParent.path == input.appending(path: "obs/42002.rss").path)
        }
    }

    @Test("a symbolic link inside the directory that points inside it is followed")
    func followsLinksInside() async throws {
        try await withDirectories { policy, input, _, _ in
            let throughLink = try policy.resolveInput("latest.rss")
            #expect(throughLink.path == input.appending(path: "obs/42002.rss").path)
        }
    }

    @Test("an output that does not exist yet resolves through its parent directory")
    func resolvesNewOutput() async throws {
        try await withDirectories { policy, _, output, _ in
            let newFile = try policy.resolveOutput("journal.csv")
            #expect(newFile.path == output.appending(path: "journal.csv").path)
            let newNestedFile = try policy.resolveOutput("reports/stats.json")
            #expect(newNestedFile.path == output.appending(path: "reports/stats.json").path)
        }
    }

    @Test("an existing output inside the directory is fine")
    func resolvesExistingOutput() async throws {
        try await withDirectories { policy, _, output, _ in
            try write("old", to: output.appending(path: "journal.csv"))
            let existingFile = try policy.resolveOutput("journal.csv")
            #expect(existingFile.path == output.appending(path: "journal.csv").path)
        }
    }

    @Test("an empty path is refused")
    func refusesEmpty() async throws {
        try await withDirectories { policy, input, output, _ in
            let inputError = try #require(throws: SpoolError.self) { try policy.resolveInput("") }
            #expect(inputError.code == .invalidPath)
            #expect(inputError.description == ": an empty path names no file in the input directory \(input.path)")
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput("") }
            #expect(outputError.code == .invalidPath)
            #expect(outputError.description == ": an empty path names no file in the output directory \(output.path)")
        }
    }

    @Test("an absolute path is refused, even one inside the directory")
    func refusesAbsolute() async throws {
        try await withDirectories { policy, input, output, _ in
            let inside = input.appending(path: "obs/42002.rss").path
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput(inside) }
            #expect(error.code == .pathOutsideAllowedDirectory)
            #expect(
                error.description
                    == "\(inside): absolute paths are refused; give a path relative to the input directory \(input.path)"
            )
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput("/etc/cron.d/x") }
            #expect(outputError.code == .pathOutsideAllowedDirectory)
            #expect(
                outputError.description
                    == "/etc/cron.d/x: absolute paths are refused; give a path relative to the output directory \(output.path)"
            )
        }
    }

    @Test("`..` that climbs out is refused", arguments: ["../secret/key", "obs/../../secret/key", "..", "a/b/../../../x"])
    func refusesClimbingOut(path: String) async throws {
        try await withDirectories { policy, input, output, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput(path) }
            #expect(error.code == .pathOutsideAllowedDirectory)
            #expect(error.description == "\(path): climbs out of the input directory \(input.path) with `..`")
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput(path) }
            #expect(outputError.code == .pathOutsideAllowedDirectory)
            #expect(outputError.description == "\(path): climbs out of the output directory \(output.path) with `..`")
        }
    }

    @Test("a path naming the directory itself is refused", arguments: [".", "obs/..", "./"])
    func refusesTheDirectoryItself(path: String) async throws {
        try await withDirectories { policy, input, _, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput(path) }
            #expect(error.code == .invalidPath)
            #expect(error.description == "\(path): names the input directory \(input.path) itself, not a file inside it")
        }
    }

    @Test("an input that is a symbolic link out of the directory is refused")
    func refusesInputLinkOut() async throws {
        try await withDirectories { policy, input, _, secret in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput("leak.rss") }
            #expect(error.code == .pathOutsideAllowedDirectory)
            #expect(
                error.description
                    == "leak.rss: resolves to \(secret.path)/key, outside the input directory \(input.path) (through a symbolic link)"
            )
        }
    }

    @Test("an input under a linked directory that points out is refused")
    func refusesInputThroughLinkedDirectory() async throws {
        try await withDirectories { policy, _, _, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput("elsewhere/key") }
            #expect(error.code == .pathOutsideAllowedDirectory)
        }
    }

    @Test("an output whose directory is a symbolic link out is refused")
    func refusesOutputThroughLinkedDirectory() async throws {
        try await withDirectories { policy, _, output, secret in
            let error = try #require(throws: SpoolError.self) { try policy.resolveOutput("elsewhere/stolen.csv") }
            #expect(error.code == .pathOutsideAllowedDirectory)
            #expect(
                error.description
                    == "elsewhere/stolen.csv: resolves to \(secret.path), outside the output directory \(output.path) (through a symbolic link)"
            )
        }
    }

    @Test("an existing output that is a symbolic link out is refused")
    func refusesOutputLinkOut() async throws {
        try await withDirectories { policy, _, _, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveOutput("key.csv") }
            #expect(error.code == .pathOutsideAllowedDirectory)
        }
    }

    @Test("an existing output that is a symbolic link to nothing is refused")
    func refusesDanglingOutputLink() async throws {
        try await withDirectories { policy, _, output, _ in
            try FileManager.default.createSymbolicLink(
                atPath: output.appending(path: "gone.csv").path,
                withDestinationPath: "/nonexistent/lineup/gone.csv"
            )
            let error = try #require(throws: SpoolError.self) { try policy.resolveOutput("gone.csv") }
            #expect(error.code == .invalidPath)
            #expect(error.description == "gone.csv: is a symbolic link to nothing in the output directory \(output.path)")
        }
    }

    @Test("a missing input, or an output in a missing directory, is not found")
    func refusesMissing() async throws {
        try await withDirectories { policy, input, output, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput("obs/41001.rss") }
            #expect(error.code == .notFound)
            #expect(error.path == "obs/41001.rss")
            #expect(error.description.hasPrefix("obs/41001.rss: cannot be read in the input directory \(input.path): "))
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput("missing/x.csv") }
            #expect(outputError.code == .notFound)
            #expect(outputError.description.hasPrefix("missing/x.csv: its directory cannot be used in the output directory \(output.path): "))
        }
    }

    // Found by the job-file fuzzer: these came back as I/O errors, which the daemon retries.
    @Test(
        "a file used as a directory, a link loop and a name too long are bad paths, not I/O errors",
        arguments: ["obs/42002.rss/x", "loop", "obs/" + String(repeating: "n", count: 300)])
    func refusesUnresolvablePaths(path: String) async throws {
        try await withDirectories { policy, input, output, _ in
            try FileManager.default.createSymbolicLink(atPath: input.appending(path: "loop").path, withDestinationPath: "loop")
            try FileManager.default.createSymbolicLink(atPath: output.appending(path: "loop").path, withDestinationPath: "loop")
            try FileManager.default.createDirectory(at: output.appending(path: "obs"), withIntermediateDirectories: true)
            try write("x", to: output.appending(path: "obs/42002.rss"))
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput(path) }
            #expect(error.code == .invalidPath)
            #expect(error.path == path)
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput(path) }
            #expect(outputError.code == .invalidPath)
            #expect(outputError.path == path)
        }
    }

    // Found by the job-file fuzzer: a name that starts with a combining mark joins the `/`
    // before it into one Swift character, which hid the `/` from a split by characters.
    @Test("paths are split and compared by bytes, not by characters")
    func splitsByBytes() async throws {
        try await withDirectories { policy, input, output, _ in
            let mark = "\u{0356}"
            let climbing = try #require(throws: SpoolError.self) { try policy.resolveOutput("../\(mark)x.csv") }
            #expect(climbing.code == .pathOutsideAllowedDirectory)
            #expect(throws: SpoolError.self) { try policy.resolveInput("../\(mark)x") }
            try write("x", to: input.appending(path: "obs/\(mark)"))
            #expect(try policy.resolveInput("obs/\(mark)").path.hasSuffix("/obs/\(mark)"))
            #expect(try policy.resolveOutput("\(mark)").path.utf8.elementsEqual((output.resolvingSymlinksInPath().path + "/" + mark).utf8))
        }
    }

    @Test("a directory is not a file")
    func refusesDirectories() async throws {
        try await withDirectories { policy, input, output, _ in
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput("obs") }
            #expect(error.code == .invalidPath)
            #expect(error.description == "obs: is a directory, not a file, in the input directory \(input.path)")
            let outputError = try #require(throws: SpoolError.self) { try policy.resolveOutput("reports/") }
            #expect(outputError.code == .invalidPath)
            #expect(outputError.description == "reports/: is a directory, not a file, in the output directory \(output.path)")
        }
    }

    @Test("a missing input directory is named")
    func missingDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appending(path: "nowhere")
            let policy = PathPolicy(inputDirectory: missing, outputDirectory: missing)
            let error = try #require(throws: SpoolError.self) { try policy.resolveInput("a.rss") }
            #expect(error.code == .notFound)
            #expect(error.description.hasPrefix("a.rss: the input directory \(missing.path) cannot be used: "))
        }
    }
}
