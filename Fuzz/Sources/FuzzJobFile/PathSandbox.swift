import Foundation
import FuzzSupport
import LineupSpool

/// Input and output directories with every kind of entry a job path can meet: files, a
/// subdirectory, symbolic links that stay inside, links out of the directory (to a file, to the
/// parent, absolute), a dangling link and a link loop. Built once per fuzzer process.
struct PathSandbox {
    let policy: PathPolicy
    /// The real paths of the two directories: what a resolved path must lie strictly inside.
    let realInput: String
    let realOutput: String

    init(root: String) {
        let manager = FileManager.default
        try? manager.removeItem(atPath: root)
        func directory(_ path: String) {
            try! manager.createDirectory(atPath: "\(root)/\(path)", withIntermediateDirectories: true)
        }
        func file(_ path: String) {
            expect(manager.createFile(atPath: "\(root)/\(path)", contents: Data("x".utf8)), "cannot create \(root)/\(path)")
        }
        func link(_ path: String, to destination: String) {
            try! manager.createSymbolicLink(atPath: "\(root)/\(path)", withDestinationPath: destination)
        }
        directory("")
        file("secret.txt")
        for role in ["input", "output"] {
            directory("\(role)/sub/deeper")
            file("\(role)/a.xml")
            file("\(role)/sub/b.xml")
            link("\(role)/in-link", to: "a.xml")
            link("\(role)/sub-link", to: "sub")
            link("\(role)/out-link", to: "../secret.txt")
            link("\(role)/up-link", to: "..")
            link("\(role)/absolute-link", to: "\(root)/secret.txt")
            link("\(role)/dangling", to: "nowhere")
            link("\(role)/loop", to: "loop")
        }
        policy = PathPolicy(
            inputDirectory: URL(fileURLWithPath: "\(root)/input"),
            outputDirectory: URL(fileURLWithPath: "\(root)/output"))
        realInput = Self.realPath("\(root)/input")!
        realOutput = Self.realPath("\(root)/output")!
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Resolves `path` both ways and checks what the policy promises: a resolved input is an
    /// existing file strictly inside the input directory and is its own real path (the file
    /// checked is the file used); a resolved output lies strictly inside the output directory
    /// by its real parent; a refusal is a SpoolError that carries the path as given.
    func check(_ path: String) {
        do {
            let url = try policy.resolveInput(path)
            expect(isInside(url.path, realInput), "input \(path.debugDescription) resolved outside: \(url.path)")
            expect(Self.realPath(url.path).map { $0.utf8.elementsEqual(url.path.utf8) } == true, "input \(path.debugDescription) resolved to \(url.path), not a real path")
            expect(!Self.isDirectory(url.path), "input \(path.debugDescription) resolved to a directory")
        } catch {
            checkRefusal(error, path)
        }
        do {
            let url = try policy.resolveOutput(path)
            let parent = url.deletingLastPathComponent().path
            expect(
                Self.realPath(parent).map { $0.utf8.elementsEqual(realOutput.utf8) || isInside($0, realOutput) } == true,
                "output \(path.debugDescription) resolved outside: \(url.path)")
            expect(isInside(url.path, realOutput), "output \(path.debugDescription) resolved to \(url.path)")
            if let real = Self.realPath(url.path) {
                expect(real.utf8.elementsEqual(url.path.utf8), "output \(path.debugDescription) resolved to \(url.path), a link to \(real)")
            }
        } catch {
            checkRefusal(error, path)
        }
    }

    /// By bytes, as the file system compares names (Swift's `hasPrefix` compares characters).
    private func isInside(_ path: String, _ directory: String) -> Bool {
        path.utf8.count > directory.utf8.count + 1 && path.utf8.starts(with: (directory + "/").utf8)
    }

    private func checkRefusal(_ error: SpoolError, _ path: String) {
        let codes: [SpoolError.Code] = [.invalidPath, .pathOutsideAllowedDirectory, .notFound]
        expect(codes.contains(error.code), "path \(path.debugDescription) refused with \(error.code): \(error)")
        expect(error.path == path, "the refusal of \(path.debugDescription) names \(String(describing: error.path))")
    }
}
