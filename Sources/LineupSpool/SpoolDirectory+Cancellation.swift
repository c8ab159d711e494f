public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cancelling a running job: an operator (`lineup cancel`, the dashboard) cannot reach into the
/// daemon that runs it, so it leaves a request in `cancel/`, one file a job, named after the job's
/// id or name. The daemon that owns the spool reads the directory a few times a second, stops the
/// job's task (its unsaved work is discarded, and it fails as "cancelled by an operator"), and
/// removes the request. A queued job needs no daemon: ``cancel(_:reason:)`` fails it at once.
///
/// A request stays until a daemon acts on it, so one left while no daemon runs is acted on by the
/// next; a daemon drops one whose job no longer runs (it had finished).
extension SpoolDirectory {
    /// The directory of the requests: `cancel/`, beside `new/` and `active/`, made at the first
    /// request.
    public var cancellationDirectory: URL {
        root.appending(path: Self.cancellationDirectoryName, directoryHint: .isDirectory)
    }

    static let cancellationDirectoryName = "cancel"

    private var cancellationPath: String { rootPath + "/" + Self.cancellationDirectoryName }

    /// Asks the daemon to cancel the running job whose id or name is `job`: writes the request
    /// into `tmp/` and renames it into `cancel/`, so that a daemon never reads half of one. A
    /// second request for the same job replaces the first.
    ///
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` for an empty `job`; an I/O error
    ///   when the request cannot be written.
    public func requestCancellation(ofJob job: String) throws(SpoolError) {
        guard !job.isEmpty else {
            throw SpoolError(code: .invalidField, path: nil, message: "a cancellation must name a job id or name")
        }
        try FileSystem.makeDirectory(cancellationPath)
        let fileName = Self.requestFileName(for: job)
        let temporary = temporaryPath + "/" + fileName + ".cancel"
        // What the request says is for people reading the directory; its name is the request.
        let request = (try? JSONSerialization.data(withJSONObject: ["job": job, "requestedAt": Date().timeIntervalSince1970])) ?? Data()
        try FileSystem.writeFile(temporary, contents: request, exclusive: false, sync: durability == .fsync)
        // Replacing: a second request for the job is the same request.
        do throws(SpoolError) {
            try FileSystem.renameReplacing(temporary, to: cancellationPath + "/" + fileName)
        } catch {
            try? FileSystem.removeFile(temporary)
            throw error
        }
        if durability == .fsync {
            try FileSystem.syncDirectory(cancellationPath)
        }
    }

    /// The ids or names of the jobs that operators asked to cancel and no daemon has acted on,
    /// oldest name first. Cheap when there are none (one `opendir` of an empty or missing
    /// directory): the daemon asks a few times a second.
    public func cancellationRequests() throws(SpoolError) -> [String] {
        guard let directory = opendir(cancellationPath) else {
            let number = errno
            if number == ENOENT { return [] }
            throw FileSystem.error("opendir", path: cancellationPath, errno: number)
        }
        closedir(directory)
        return try FileSystem.fileNames(in: cancellationPath).compactMap(Self.job(inRequestFileName:)).sorted()
    }

    /// Removes the request to cancel `job`, once a daemon has acted on it (or found nothing to
    /// act on). Removing one that is gone already is no error.
    public func removeCancellationRequest(ofJob job: String) throws(SpoolError) {
        _ = try FileSystem.removeFileIfPresent(cancellationPath + "/" + Self.requestFileName(for: job))
    }

    /// The files in `active/` that run the job whose id or name is `job`: its job file, or the
    /// bulk file whose line it names (`<bulk>.line<N>`; a line's id is not looked for, which
    /// would mean reading the bulk).
    public func runningEntries(matching job: String) throws(SpoolError) -> [SpoolEntry] {
        try entries(.running).filter { entry in
            entry.name == job || (entry.isBulk ? job.hasPrefix(entry.name + ".line") : jobFile(of: entry)?.id == job)
        }
    }

    /// Whether a request to cancel `job` waits for a daemon.
    public func hasCancellationRequest(ofJob job: String) -> Bool {
        FileSystem.fileExists(cancellationPath + "/" + Self.requestFileName(for: job))
    }

    /// `job` as a file name: bytes outside `[A-Za-z0-9_-]` and a leading `.` percent-encoded, so
    /// that any id (one with a `/`, one that starts with a dot) names a file of its own in
    /// `cancel/`, and a dotfile there is never a request.
    static func requestFileName(for job: String) -> String {
        var name = ""
        for byte in job.utf8 {
            let isPlain =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || (byte == UInt8(ascii: ".") && !name.isEmpty)
            name += isPlain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return name
    }

    /// The job a request file names; nil for what is not a request (a dotfile).
    static func job(inRequestFileName fileName: String) -> String? {
        guard !fileName.hasPrefix("."), let job = fileName.removingPercentEncoding, !job.isEmpty else { return nil }
        return job
    }
}
