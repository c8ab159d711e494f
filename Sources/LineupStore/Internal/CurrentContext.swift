#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The context whose block runs on the current thread, in a thread-local slot: set for the time
/// of each `perform`/`performAndWait` block (which is how code gets onto a context's queue),
/// restored after it.
///
/// It is what confinement is checked against, on every use of a context or a managed object and
/// in release builds too, as GRDB's `SchedulingWatchdog` checks its connections. A thread-local
/// read and a pointer comparison cost a few nanoseconds, where `DispatchQueue.getSpecific` takes
/// a lock and walks the queue's list of specifics.
enum CurrentContext {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// The identity (see `ManagedObjectContext.identity`) of the context whose block runs on this
    /// thread; nil outside every context's block.
    @inline(__always)
    static var identity: UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Runs `body` as a block of `context` on this thread: inside it, `context` is the current
    /// one; after it, the previous one (the caller's, when a `performAndWait` runs on the thread
    /// of the context that called it) is current again.
    static func run<T>(_ context: ManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, context.identity)
        defer { pthread_setspecific(key, outer) }
        return try body()
    }

    /// The context whose block runs on this thread.
    static var context: ManagedObjectContext? {
        // Safe: a context is current only while its block runs, and that block's frame holds the
        // context strongly.
        identity.map { Unmanaged<ManagedObjectContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Where the caller runs, for a message: "on the queue of context main", or "outside any
    /// context's queue".
    static var whereabouts: String {
        if let context { return "on the queue of context \(context.name)" }
        return "outside any context's queue"
    }
}
