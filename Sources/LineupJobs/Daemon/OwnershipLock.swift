import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a lock file (`flock(2)`), held from ``acquire(_:guarding:)`` until
/// ``release()`` or the end of the process, however it ends: the kernel drops the lock with the
/// last descriptor, so a crashed daemon never leaves a stale lock behind.
///
/// One process owns a spool and a store at a time (DESIGN §3 "One owner"): a second daemon
/// would recover the first one's `active/` jobs and run them twice, and two processes would
/// hand out primary keys from counters that know nothing of each other. The daemon holds a
/// lock on `<spool>/lock` and one on `<store>.lock`; `lineup run` holds the store's. A second
/// owner is refused at once with the holder's pid, which the holder writes into the file.
///
/// The file is never removed: removing a lock file lets a waiter lock the removed file while a
/// newcomer locks a new one, and both would own the spool.
public final class OwnershipLock: Sendable {
    /// The lock file.
    public let path: String
    /// What the lock guards, for messages: "spool", "store".
    public let guarding: String
    private let descriptor: Int32

    private init(path: String, guarding: String, descriptor: Int32) {
        self.path = path
        self.guarding = guarding
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Takes the lock at `path`, creating the file when needed, without waiting.
    ///
    /// - Parameters:
    ///   - path: the lock file (`<spool>/lock`, `<store>.lock`).
    ///   - guarding: what the lock guards, as messages name it ("spool", "store").
    /// - Throws: ``DaemonError/Code/alreadyOwned`` naming the holder's pid when another
    ///   process (or another lock in this one) holds it; ``DaemonError/Code/spoolUnavailable``
    ///   or ``DaemonError/Code/storeUnavailable`` when the file cannot be opened.
    public static func acquire(_ path: String, guarding: String) throws(DaemonError) -> OwnershipLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw DaemonError(
                guarding == "spool" ? .spoolUnavailable : .storeUnavailable, path: path,
                "cannot open the \(guarding)'s lock file: \(reason)")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            let holder = Self.holder(descriptor)
            close(descriptor)
            if number == EWOULDBLOCK {
                throw DaemonError(
                    .alreadyOwned, path: path,
                    "the \(guarding) is in use by \(holder ?? "another process") (it holds this lock file); "
                        + "one process owns a \(guarding) at a time")
            }
            throw DaemonError(
                guarding == "spool" ? .spoolUnavailable : .storeUnavailable, path: path,
                "cannot lock the \(guarding)'s lock file: \(String(cString: strerror(number)))")
        }
        let lock = OwnershipLock(path: path, guarding: guarding, descriptor: descriptor)
        lock.recordHolder()
        return lock
    }

    /// Gives the lock up (closing the file), so that another process may take it.
    public func release() {
        // The descriptor closes in deinit; unlocking here lets a successor in before that.
        flock(descriptor, LOCK_UN)
    }

    /// Writes `pid <n> (<program>)` into the file, for the message of whoever is refused.
    private func recordHolder() {
        let text = "pid \(getpid()) (\(ProcessInfo.processInfo.processName))\n"
        guard ftruncate(descriptor, 0) == 0 else { return }
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// What the holder wrote into the file, if anything readable.
    private static func holder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.hasPrefix("pid ") ? text : nil
    }
}
