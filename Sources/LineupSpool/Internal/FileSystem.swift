import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few system calls the spool needs, with `errno` turned into ``SpoolError``.
///
/// The spool talks to the kernel directly instead of through `FileManager` because every
/// step of the protocol must be one specific system call (`rename(2)` is the atomic step;
/// `fsync(2)` on a directory makes it durable), and because the claim path runs thousands of
/// times per second.
enum FileSystem {
    static func error(_ operation: String, path: String, errno number: Int32) -> SpoolError {
        let reason = String(cString: strerror(number))
        return SpoolError(
            code: number == ENOENT ? .notFound : .io,
            path: path,
            message: "\(operation) failed: \(reason) (errno \(number))",
            systemErrorNumber: number
        )
    }

    /// Creates a directory; an existing directory is fine.
    static func makeDirectory(_ path: String) throws(SpoolError) {
        if mkdir(path, 0o755) != 0 {
            let number = errno
            guard number == EEXIST else {
                throw error("mkdir", path: path, errno: number)
            }
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
                throw SpoolError(code: .io, path: path, message: "exists but is not a directory")
            }
        }
    }

    /// The names in a directory, without `.`, `..` and subdirectories.
    static func fileNames(in path: String) throws(SpoolError) -> [String] {
        guard let directory = opendir(path) else {
            throw error("opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            if entry.pointee.d_type == UInt8(DT_DIR) {
                continue
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." {
                names.append(name)
            }
        }
        return names
    }

    /// Writes `contents` to a new file at `path` (replacing any file there unless
    /// `exclusive`), then fsyncs it when `sync` is true.
    static func writeFile(_ path: String, contents: Data, exclusive: Bool, sync: Bool) throws(SpoolError) {
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC
        flags |= exclusive ? O_EXCL : O_TRUNC
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            throw error("open", path: path, errno: errno)
        }
        var failure = writeAll(contents, to: descriptor, path: path)
        if failure == nil, sync, fsync(descriptor) != 0 {
            failure = error("fsync", path: path, errno: errno)
        }
        if close(descriptor) != 0, failure == nil {
            failure = error("close", path: path, errno: errno)
        }
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Writes all of `contents` to `descriptor` (a `write(2)` may write less than asked); the
    /// error, if one stopped it.
    private static func writeAll(_ contents: Data, to descriptor: Int32, path: String) -> SpoolError? {
        contents.withUnsafeBytes { buffer -> SpoolError? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return error("write", path: path, errno: errno)
                }
                offset += written
            }
            return nil
        }
    }

    /// Appends `contents` to the file at `path` (created when missing), then fsyncs it, and its
    /// directory when the file is new, when `sync` is true. A write that fails is cut off again,
    /// so that the file ends where it ended before.
    static func appendToFile(_ path: String, contents: Data, sync: Bool) throws(SpoolError) {
        let isNew = !fileExists(path)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw error("open", path: path, errno: errno)
        }
        var status = stat()
        let sizeBefore = fstat(descriptor, &status) == 0 ? status.st_size : -1
        var failure = writeAll(contents, to: descriptor, path: path)
        if failure == nil, sync, fsync(descriptor) != 0 {
            failure = error("fsync", path: path, errno: errno)
        }
        if failure != nil, sizeBefore >= 0 {
            _ = ftruncate(descriptor, sizeBefore)
        }
        if close(descriptor) != 0, failure == nil {
            failure = error("close", path: path, errno: errno)
        }
        if let failure {
            throw failure
        }
        if isNew, sync {
            try syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
        }
    }

    /// Cuts the file at `path` to `length` bytes.
    static func truncateFile(_ path: String, to length: Int) throws(SpoolError) {
        if truncate(path, off_t(length)) != 0 {
            throw error("truncate", path: path, errno: errno)
        }
    }

    /// Reads a whole file. A file larger than `limit` is not read: the result then has empty
    /// contents and its real size, so that the caller can say why it refused it.
    static func readFile(_ path: String, limit: Int) throws(SpoolError) -> (contents: Data, size: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw error("open", path: path, errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw error("fstat", path: path, errno: errno)
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            return (Data(), size)
        }
        var contents = Data(count: size)
        var total = 0
        var failure: Int32?
        contents.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while total < size {
                let count = read(descriptor, base + total, size - total)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if count == 0 { break }
                total += count
            }
        }
        if let failure {
            throw error("read", path: path, errno: failure)
        }
        if total < size {
            contents.removeSubrange(total...)
        }
        return (contents, total)
    }

    /// Renames `source` to `destination`, never replacing a file there: every move in the
    /// spool goes to a name that must be free, and a rename that replaced a file would lose a
    /// job without a trace. Returns false when `source` does not exist: in the spool that means
    /// another process moved it first.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/alreadyExists`` when `destination`
    ///   exists; ``SpoolError/Code/io`` when the rename fails for another reason.
    static func rename(_ source: String, to destination: String) throws(SpoolError) -> Bool {
        if renameWithoutReplacing(source, destination) == 0 {
            return true
        }
        let number = errno
        if number == ENOENT, access(source, F_OK) != 0 {
            return false
        }
        if number == EEXIST {
            throw SpoolError(
                code: .alreadyExists, path: source,
                message: "cannot be moved to \(destination): a file of that name is already there", systemErrorNumber: number)
        }
        throw error("rename to \(destination)", path: source, errno: number)
    }

    /// `rename(2)`, replacing a file at `destination`: for what is the same whichever copy wins.
    static func renameReplacing(_ source: String, to destination: String) throws(SpoolError) {
        #if canImport(Glibc)
        let result = Glibc.rename(source, destination)
        #else
        let result = Darwin.rename(source, destination)
        #endif
        if result != 0 {
            throw error("rename to \(destination)", path: source, errno: errno)
        }
    }

    /// `renameat2(…, RENAME_NOREPLACE)`, which the kernel performs atomically. Glibc declares it
    /// only for `_GNU_SOURCE`, which Swift's Glibc module does not define, so it is looked up
    /// at run time. Where the kernel or the file system cannot do it (`EINVAL`: some network and
    /// FUSE file systems), a check of the destination followed by `rename(2)` is the fallback:
    /// the spool's destination names carry a fresh random claim, so only a deliberate copy could
    /// slip into that window.
    private static func renameWithoutReplacing(_ source: String, _ destination: String) -> Int32 {
        #if canImport(Glibc)
        if let renameat2 = renameat2Function {
            let result = renameat2(AT_FDCWD, source, AT_FDCWD, destination, renameNoReplace)
            if result == 0 || (errno != EINVAL && errno != ENOSYS) {
                return result
            }
        }
        if access(destination, F_OK) == 0 {
            errno = EEXIST
            return -1
        }
        return Glibc.rename(source, destination)
        #else
        return renamex_np(source, destination, UInt32(RENAME_EXCL))
        #endif
    }

    #if canImport(Glibc)
    private typealias RenameAt2 = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
    ) -> Int32

    /// From `<linux/fs.h>`.
    private static let renameNoReplace: UInt32 = 1

    private static let renameat2Function: RenameAt2? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
    #endif

    static func removeFile(_ path: String) throws(SpoolError) {
        if unlink(path) != 0, errno != ENOENT {
            throw error("unlink", path: path, errno: errno)
        }
    }

    /// Removes a file; returns false when it was not there (someone else removed it first).
    static func removeFileIfPresent(_ path: String) throws(SpoolError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("unlink", path: path, errno: errno)
    }

    static func fileExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The modification time of a file, or nil when it is gone.
    static func modificationTime(_ path: String) -> Date? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let time = status.st_mtim
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// Makes the entries of a directory (names created, renamed in or out) durable.
    static func syncDirectory(_ path: String) throws(SpoolError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw error("open directory", path: path, errno: errno)
        }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 {
            throw error("fsync directory", path: path, errno: errno)
        }
    }

    /// `realpath(3)`: the absolute path with every symbolic link, `.` and `..` resolved.
    static func realPath(_ path: String) -> Result<String, SpoolError> {
        guard let resolved = realpath(path, nil) else {
            return .failure(error("realpath", path: path, errno: errno))
        }
        defer { free(resolved) }
        return .success(String(cString: resolved))
    }
}
