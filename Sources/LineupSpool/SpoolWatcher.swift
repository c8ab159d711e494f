public import Foundation
import LineupLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a consumer when new work may be waiting in a spool's `new/` directory.
///
/// The watcher calls its `hint` handler once at start (jobs may already be queued), whenever
/// inotify reports a file renamed into or closed after writing in `new/`, and on every rescan
/// tick. A hint is only a hint: inotify drops events under load and sees nothing on network
/// file systems, which is why the ticks exist; the consumer claims until
/// ``SpoolDirectory/claimNext()`` returns nil. Inotify hints come at most one a millisecond:
/// the files of a burst share one hint.
///
/// The handler runs on the watcher's own thread, which waits in `poll(2)` with the tick as
/// timeout, so it must return quickly: hand the claiming over to the consumer's queue, and
/// merge hints that arrive while a claim is pending (the daemon's runner does both). Without
/// inotify (another OS, no more watches, a missing directory) the watcher runs on ticks alone;
/// ``usesInotify`` says which. ``stop()`` (or releasing the watcher) wakes the thread through
/// a pipe; it calls the handler no more and lets go of it.
///
/// ```swift
/// let claims = DispatchQueue(label: "claims")
/// let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(1)) {
///     claims.async { while let job = try? spool.claimNext() { run(job) } }
/// }
/// ```
public final class SpoolWatcher: Sendable {
    /// Whether inotify events drive the hints (otherwise only the ticks do).
    public let usesInotify: Bool

    private let loop: WatchLoop

    /// Starts watching `directory` (a spool's `new/`).
    ///
    /// - Parameters:
    ///   - rescanInterval: the time between ticks, hints sent whatever inotify says.
    ///   - useInotify: false to run on ticks alone.
    ///   - hint: called on the watcher's thread each time new work may be there.
    public convenience init(
        directory: URL, rescanInterval: Duration = .seconds(1), useInotify: Bool = true,
        hint: @escaping @Sendable () -> Void
    ) {
        self.init(directory: directory, rescanInterval: rescanInterval, useInotify: useInotify, arrival: nil, hint: hint)
    }

    /// `arrival` is told the name of each file that inotify reports, before the hint that covers it.
    private init(
        directory: URL, rescanInterval: Duration, useInotify: Bool, arrival: (@Sendable (String) -> Void)?,
        hint: @escaping @Sendable () -> Void
    ) {
        precondition(rescanInterval > .zero, "rescanInterval must be positive")
        let loop = WatchLoop(
            directory: directory.path, interval: rescanInterval, useInotify: useInotify, arrival: arrival, hint: hint)
        self.usesInotify = loop.inotifyDescriptor >= 0
        self.loop = loop
        let thread = Thread { loop.run() }
        thread.name = "lineup-spool-watcher"
        thread.start()
    }

    /// Starts watching the `new/` directory of `spool`. The spool learns the names that inotify
    /// reports, so that a job of a more urgent priority than the rest of its listing of `new/` is
    /// claimed in its place rather than once that listing is used up (see
    /// `SpoolDirectory.noteArrival(fileName:)`).
    public convenience init(
        spool: SpoolDirectory, rescanInterval: Duration = .seconds(1), useInotify: Bool = true,
        hint: @escaping @Sendable () -> Void
    ) {
        self.init(
            directory: spool.directory(.queued), rescanInterval: rescanInterval, useInotify: useInotify,
            arrival: { spool.noteArrival(fileName: $0) }, hint: hint)
    }

    /// Stops watching: the thread leaves `poll(2)` at once and calls the handler no more.
    /// Calling it again does nothing.
    public func stop() {
        loop.requestStop()
    }

    deinit {
        loop.requestStop()
    }
}

/// The watching thread's state. The descriptors are immutable and closed in `deinit`, which runs
/// only when neither the thread nor the watcher holds the loop any more, so no descriptor is
/// closed while in use. The handler is behind a lock only so that the thread can let go of it
/// when it stops: a stopped watcher must not keep its consumer alive.
private final class WatchLoop: Sendable {
    let inotifyDescriptor: Int32
    private let wakeReadDescriptor: Int32
    private let wakeWriteDescriptor: Int32
    private let interval: Duration
    private let hint: Locked<(@Sendable () -> Void)?>
    private let arrival: (@Sendable (String) -> Void)?

    init(
        directory: String, interval: Duration, useInotify: Bool, arrival: (@Sendable (String) -> Void)?,
        hint: @escaping @Sendable () -> Void
    ) {
        self.interval = interval
        self.arrival = arrival
        self.hint = Locked(hint)
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) == 0 {
            for descriptor in descriptors {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeReadDescriptor = descriptors[0]
        wakeWriteDescriptor = descriptors[1]
        inotifyDescriptor = useInotify ? Self.watch(directory) : -1
    }

    deinit {
        for descriptor in [inotifyDescriptor, wakeReadDescriptor, wakeWriteDescriptor] where descriptor >= 0 {
            close(descriptor)
        }
    }

    /// An inotify descriptor watching `directory`, or -1 when inotify cannot be used.
    private static func watch(_ directory: String) -> Int32 {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return -1 }
        guard inotify_add_watch(descriptor, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
        #else
        return -1
        #endif
    }

    func requestStop() {
        guard wakeWriteDescriptor >= 0 else { return }
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds a stop request.
        _ = write(wakeWriteDescriptor, &byte, 1)
    }

    func run() {
        defer { hint.withLock { $0 = nil } }
        guard let handler = hint.withLock({ $0 }) else { return }
        handler()
        guard wakeReadDescriptor >= 0 else { return }
        let clock = ContinuousClock()
        var nextTick = clock.now.advanced(by: interval)
        var descriptors = [pollfd(fd: wakeReadDescriptor, events: Int16(POLLIN), revents: 0)]
        if inotifyDescriptor >= 0 {
            descriptors.append(pollfd(fd: inotifyDescriptor, events: Int16(POLLIN), revents: 0))
        }
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), Self.milliseconds(until: nextTick, clock: clock))
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents != 0 {
                return
            }
            if descriptors.count > 1, descriptors[1].revents != 0 {
                drainInotify()
                handler()
                // A producer enqueuing flat out renames a file into new/ every few
                // microseconds; one hint per file would wake this thread, the consumer and its
                // claiming queue thousands of times a second for work one hint already covers.
                // Events of the next moment are gathered into the next hint instead.
                if awaitStop(timeout: Self.hintSpacingMilliseconds) {
                    return
                }
            }
            if clock.now >= nextTick {
                handler()
                nextTick = clock.now.advanced(by: interval)
            }
        }
    }

    /// The least time between two inotify hints. Short beside the pick-up latency a consumer
    /// cares about (tens of milliseconds), long beside the time to enqueue one job.
    private static let hintSpacingMilliseconds: Int32 = 1

    /// Waits up to `timeout` for a stop request; returns whether one came.
    private func awaitStop(timeout milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: wakeReadDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        return ready > 0 && descriptor.revents != 0
    }

    /// Reads every pending event: their arrival is the hint; their names go to `arrival`, if any.
    private func drainInotify() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                if let arrival { Self.forEachName(in: buffer, count: count, arrival) }
                continue
            }
            if count < 0, errno == EINTR { continue }
            return
        }
    }

    /// The names of the `inotify_event`s in the first `count` bytes of `buffer`: each a header of
    /// four 32-bit fields (the last the name's length) and the name, padded with NULs.
    private static func forEachName(in buffer: [UInt8], count: Int, _ body: (String) -> Void) {
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 16 <= count {
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let start = offset + 16
                let end = min(start + length, count)
                if let name = bytes[start..<end].split(separator: 0, maxSplits: 1, omittingEmptySubsequences: true).first {
                    body(String(decoding: name, as: UTF8.self))
                }
                offset = start + length
            }
        }
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Int32 {
        let remaining = clock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
