#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The allocator that serves this process's `malloc`, and so every Swift object and array.
///
/// Release builds of Lineup's executables (`lineupd`, `lineup`, `lineup-bench`) link jemalloc,
/// because the stack's rows are built on one thread and freed on another: a task context makes a
/// row's values, and the writer frees them once it has written them. glibc's `malloc` serves such
/// a free by taking the lock of the arena the memory came from, the lock the allocating thread
/// takes for its own next allocations, so the two threads queue on it for every row. jemalloc
/// returns memory to its arena in batches. On the 2-core machines of `lineup-bench stack`,
/// linking it took the stack's insert from 0.72 to 1.12 of raw SQLite's speed, and its CPU time
/// from 1.97 s to 1.37 s.
///
/// Linking is not enough by itself: the library must come before the C library in the process's
/// symbol lookup, and a sanitizer's allocator comes before both. So the executables report what
/// they found (`lineupd` in its start line, `lineup-bench` under its table), and a test checks it.
public enum ProcessAllocator: Sendable, Equatable, CustomStringConvertible {
    /// jemalloc serves `malloc`.
    case jemalloc(version: String)
    /// A sanitizer's allocator (ThreadSanitizer, AddressSanitizer) serves `malloc`, as it does in
    /// a build with `--sanitize`.
    case sanitizer
    /// The C library's `malloc`: jemalloc is not linked (a debug build), or it is linked after
    /// the C library.
    case cLibrary

    /// Found out once, on first use.
    public static let current = ProcessAllocator.detect()

    public var description: String {
        switch self {
        case let .jemalloc(version): "jemalloc \(version)"
        case .sanitizer: "a sanitizer's malloc"
        case .cLibrary: "the C library's malloc"
        }
    }

    /// jemalloc counts the bytes each thread allocates through it: an allocation that moves the
    /// count went through jemalloc. The probe allocates as the Swift runtime does for objects and
    /// arrays, through `swift_slowAlloc`, an opaque call the optimizer cannot drop. jemalloc's
    /// control function is looked up, not linked, so that a build without jemalloc links too.
    private static func detect() -> ProcessAllocator {
        let probeSize = 1 << 16
        if let mallctl = jemallocControl(), let version = jemallocVersion(mallctl),
            let before = bytesAllocatedByThisThread(mallctl)
        {
            let probe = UnsafeMutableRawPointer.allocate(byteCount: probeSize, alignment: 16)
            probe.deallocate()
            if let after = bytesAllocatedByThisThread(mallctl), after &- before >= UInt64(probeSize) {
                return .jemalloc(version: version)
            }
        }
        return sanitizerIsLoaded() ? .sanitizer : .cLibrary
    }

    /// jemalloc's version, e.g. `5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c`, up to its
    /// first `-`.
    private static func jemallocVersion(_ mallctl: Control) -> String? {
        var version: UnsafePointer<CChar>?
        var length = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &length, nil, 0) == 0, let version else { return nil }
        return String(cString: version).split(separator: "-").first.map(String.init)
    }

    private static func bytesAllocatedByThisThread(_ mallctl: Control) -> UInt64? {
        var bytes: UInt64 = 0
        var length = MemoryLayout<UInt64>.size
        guard mallctl("thread.allocated", &bytes, &length, nil, 0) == 0 else { return nil }
        return bytes
    }

    /// `int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)`.
    private typealias Control = @convention(c) (
        UnsafePointer<CChar>, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int
    ) -> Int32

    private static func jemallocControl() -> Control? {
        // RTLD_DEFAULT is `((void *) 0)` in glibc's headers, which Swift does not import.
        guard let symbol = dlsym(nil, "mallctl") else { return nil }
        return unsafeBitCast(symbol, to: Control.self)
    }

    private static func sanitizerIsLoaded() -> Bool {
        let initializers: [String] = ["__tsan_init", "__asan_init"]
        return initializers.contains { dlsym(nil, $0) != nil }
    }
}
