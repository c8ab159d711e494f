import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kinds and queues an operator paused (`lineup pause`), kept in `paused.json` at the spool's
/// root so that a restart finds them: their jobs stay in `new/`, unclaimed, until resumed.
///
/// Each change rewrites the whole file atomically (a temporary file in `tmp/`, synced, renamed
/// over the old one), under an advisory lock on `paused.lock`, so that two operators pausing at
/// once both count. The daemon reads the file again every rescan interval (see
/// `DaemonConfiguration.rescanInterval`).
extension SpoolDirectory {
    /// The file's name in the spool's root.
    public static let pausedFileName = "paused.json"

    private struct PausedFile: Codable {
        var paused: [JobScope]
    }

    /// What is paused now, sorted; empty when the file is missing.
    public func pausedScopes() throws(SpoolError) -> [JobScope] {
        let path = rootPath + "/" + Self.pausedFileName
        guard FileSystem.fileExists(path) else { return [] }
        let contents = try FileSystem.readFile(path, limit: 1 << 20).contents
        do {
            return try JSONDecoder().decode(PausedFile.self, from: contents).paused.sorted()
        } catch {
            throw SpoolError(code: .invalidField, path: path, message: "is not a list of paused kinds and queues: \(error)")
        }
    }

    /// Pauses `scope`; returns whether it was running (false: paused already).
    @discardableResult
    public func pause(_ scope: JobScope) throws(SpoolError) -> Bool {
        try changePaused { $0.insert(scope).inserted }
    }

    /// Resumes `scope`; returns whether it was paused.
    @discardableResult
    public func resume(_ scope: JobScope) throws(SpoolError) -> Bool {
        try changePaused { $0.remove(scope) != nil }
    }

    private func changePaused(_ change: (inout Set<JobScope>) -> Bool) throws(SpoolError) -> Bool {
        let lockPath = rootPath + "/paused.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SpoolError(code: .io, path: lockPath, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw SpoolError(code: .io, path: lockPath, message: "cannot lock: \(String(cString: strerror(errno)))")
        }
        var scopes = Set(try pausedScopes())
        guard change(&scopes) else { return false }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let contents: Data
        do {
            contents = try encoder.encode(PausedFile(paused: scopes.sorted()))
        } catch {
            throw SpoolError(code: .io, path: rootPath, message: "cannot encode the paused list: \(error)")
        }
        let temporary = temporaryPath + "/.paused.\(UInt32.random(in: 0...UInt32.max)).json"
        try FileSystem.writeFile(temporary, contents: contents, exclusive: true, sync: true)
        // Replacing on purpose: readers see the old list or the new one.
        guard rename(temporary, rootPath + "/" + Self.pausedFileName) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SpoolError(code: .io, path: rootPath + "/" + Self.pausedFileName, message: "cannot be replaced: \(reason)")
        }
        return true
    }
}
