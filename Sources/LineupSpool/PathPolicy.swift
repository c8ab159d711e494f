public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where jobs may read and write: every path in a job file is relative to the input or the
/// output directory and must stay inside it.
///
/// A path is refused when it is empty, absolute, climbs out with `..`, or resolves (with
/// every symbolic link followed by `realpath(3)`) outside the directory. A symbolic link
/// inside the directory that points inside it is fine. The returned URL is the resolved
/// real path, so the file checked is the file used.
///
/// ```swift
/// let policy = PathPolicy(inputDirectory: inbox, outputDirectory: exports)
/// let input = try policy.resolveInput("obs/42002.rss")      // <inbox real path>/obs/42002.rss
/// let output = try policy.resolveOutput("journal.csv")      // may not exist yet
/// try policy.resolveInput("../etc/passwd")                  // throws .pathOutsideAllowedDirectory
/// ```
public struct PathPolicy: Sendable, Hashable {
    /// The directory input paths are relative to.
    public let inputDirectory: URL
    /// The directory output paths are relative to.
    public let outputDirectory: URL

    public init(inputDirectory: URL, outputDirectory: URL) {
        self.inputDirectory = inputDirectory
        self.outputDirectory = outputDirectory
    }

    /// Resolves a path a job reads. The file must exist and not be a directory.
    ///
    /// - Throws: ``SpoolError`` whose path is `path` and whose message names the input
    ///   directory: ``SpoolError/Code/invalidPath`` (empty, the directory itself, a
    ///   directory), ``SpoolError/Code/pathOutsideAllowedDirectory`` (absolute, `..` out, a
    ///   symbolic link out), ``SpoolError/Code/notFound`` (no such file, or no input
    ///   directory).
    public func resolveInput(_ path: String) throws(SpoolError) -> URL {
        let (directory, components) = try check(path, role: "input", directory: inputDirectory)
        let candidate = directory + "/" + components.joined(separator: "/")
        let real: String
        switch Self.realPathInside(candidate) {
        case .success(let resolved):
            real = resolved
        case .failure(let error):
            throw SpoolError(
                code: error.code,
                path: path,
                message: "cannot be read in the input directory \(inputDirectory.path): \(error.message)",
                systemErrorNumber: error.systemErrorNumber
            )
        }
        return try accept(real, requested: path, role: "input", directory: directory)
    }

    /// Resolves a path a job writes. The file may not exist yet, but its parent directory
    /// must; an existing file is resolved itself (a symbolic link out is refused).
    ///
    /// - Throws: ``SpoolError`` as ``resolveInput(_:)`` does, naming the output directory.
    public func resolveOutput(_ path: String) throws(SpoolError) -> URL {
        let (directory, components) = try check(path, role: "output", directory: outputDirectory)
        let candidate = directory + "/" + components.joined(separator: "/")
        var status = stat()
        if lstat(candidate, &status) == 0 {
            guard case .success(let real) = Self.realPathInside(candidate) else {
                throw SpoolError(
                    code: .invalidPath,
                    path: path,
                    message: "is a symbolic link to nothing in the output directory \(outputDirectory.path)"
                )
            }
            return try accept(real, requested: path, role: "output", directory: directory)
        }
        let name = components[components.count - 1]
        guard !name.utf8.elementsEqual("..".utf8) else {
            throw SpoolError(code: .invalidPath, path: path, message: "does not name a file in the output directory \(outputDirectory.path)")
        }
        let parent = ([directory] + components.dropLast()).joined(separator: "/")
        let realParent: String
        switch Self.realPathInside(parent) {
        case .success(let resolved):
            realParent = resolved
        case .failure(let error):
            throw SpoolError(
                code: error.code,
                path: path,
                message: "its directory cannot be used in the output directory \(outputDirectory.path): \(error.message)",
                systemErrorNumber: error.systemErrorNumber
            )
        }
        guard Self.isSame(realParent, directory) || Self.isStrictlyInside(realParent, directory) else {
            throw outside(path, real: realParent, role: "output", directory: outputDirectory)
        }
        var parentStatus = stat()
        guard stat(realParent, &parentStatus) == 0, (parentStatus.st_mode & S_IFMT) == S_IFDIR else {
            throw SpoolError(
                code: .invalidPath,
                path: path,
                message: "its directory is a file, in the output directory \(outputDirectory.path)"
            )
        }
        return URL(fileURLWithPath: realParent + "/" + name)
    }

    /// The checks that need no file system, and the real path of the directory.
    private func check(_ path: String, role: String, directory: URL) throws(SpoolError) -> (String, [String]) {
        guard !path.isEmpty else {
            throw SpoolError(
                code: .invalidPath,
                path: path,
                message: "an empty path names no file in the \(role) directory \(directory.path)"
            )
        }
        guard !path.utf8.contains(0) else {
            throw SpoolError(code: .invalidPath, path: path, message: "contains a NUL byte")
        }
        // Split by bytes, as the file system does. Characters would hide a `/` followed by a
        // combining mark (one character, `"/\u{356}"`), so that `"../\u{356}x"` read as one
        // name one level down while the file system climbs out with it.
        let slash = UInt8(ascii: "/")
        guard path.utf8.first != slash else {
            throw SpoolError(
                code: .pathOutsideAllowedDirectory,
                path: path,
                message: "absolute paths are refused; give a path relative to the \(role) directory \(directory.path)"
            )
        }
        var components: [String] = []
        var depth = 0
        for bytes in path.utf8.split(separator: slash, omittingEmptySubsequences: true) {
            // Cut at ASCII `/` bytes, so each piece is valid UTF-8 and converts exactly.
            let component = String(decoding: bytes, as: UTF8.self)
            if component.utf8.elementsEqual(".".utf8) { continue }
            let climbs = component.utf8.elementsEqual("..".utf8)
            guard component.utf8.count <= Self.maximumNameLength else {
                throw SpoolError(
                    code: .invalidPath,
                    path: path,
                    message: "has a name longer than \(Self.maximumNameLength) bytes, which no file in the \(role) directory \(directory.path) can have"
                )
            }
            depth += climbs ? -1 : 1
            guard depth >= 0 else {
                throw SpoolError(
                    code: .pathOutsideAllowedDirectory,
                    path: path,
                    message: "climbs out of the \(role) directory \(directory.path) with `..`"
                )
            }
            components.append(component)
        }
        guard depth > 0, !components.isEmpty else {
            throw SpoolError(
                code: .invalidPath,
                path: path,
                message: "names the \(role) directory \(directory.path) itself, not a file inside it"
            )
        }
        switch FileSystem.realPath(directory.path) {
        case .success(let real):
            return (real, components)
        case .failure(let error):
            throw SpoolError(
                code: error.code,
                path: path,
                message: "the \(role) directory \(directory.path) cannot be used: \(error.message)",
                systemErrorNumber: error.systemErrorNumber
            )
        }
    }

    /// Accepts a resolved path that lies strictly inside `directory` and is not a directory.
    private func accept(_ real: String, requested path: String, role: String, directory: String) throws(SpoolError) -> URL {
        let configured = role == "input" ? inputDirectory : outputDirectory
        guard Self.isStrictlyInside(real, directory) else {
            throw outside(path, real: real, role: role, directory: configured)
        }
        var status = stat()
        if stat(real, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw SpoolError(
                code: .invalidPath,
                path: path,
                message: "is a directory, not a file, in the \(role) directory \(configured.path)"
            )
        }
        return URL(fileURLWithPath: real)
    }

    private func outside(_ path: String, real: String, role: String, directory: URL) -> SpoolError {
        SpoolError(
            code: .pathOutsideAllowedDirectory,
            path: path,
            message: "resolves to \(real), outside the \(role) directory \(directory.path) (through a symbolic link)"
        )
    }

    /// `NAME_MAX` of Linux file systems.
    private static let maximumNameLength = 255

    /// `realpath(3)` of a path below the directory. A file used as a directory, a loop of
    /// symbolic links or a name too long is the job's mistake, not the file system's: it is
    /// refused as an invalid path, so that the job fails at once rather than being retried as
    /// an I/O error.
    private static func realPathInside(_ path: String) -> Result<String, SpoolError> {
        FileSystem.realPath(path).mapError { error in
            guard let number = error.systemErrorNumber, [ENOTDIR, ELOOP, ENAMETOOLONG].contains(number) else {
                return error
            }
            var refusal = error
            refusal.code = .invalidPath
            return refusal
        }
    }

    /// By bytes, as the file system compares names: `String.hasPrefix` compares characters, so
    /// a name starting with a combining mark (which joins the `/` before it) would read as
    /// outside, and a directory whose name is canonically equivalent but not equal as inside.
    private static func isStrictlyInside(_ path: String, _ directory: String) -> Bool {
        let prefix = directory == "/" ? "/" : directory + "/"
        return path.utf8.count > prefix.utf8.count && path.utf8.starts(with: prefix.utf8)
    }

    private static func isSame(_ path: String, _ directory: String) -> Bool {
        path.utf8.elementsEqual(directory.utf8)
    }
}
