#if canImport(Glibc)
import Glibc
#endif

/// Whether the tests run under the thread sanitizer (`swift test --sanitize=thread`), and how far
/// the machine's own share of a timed bound stretches there.
///
/// The sanitizer slows every memory access several times over, and the whole suite, run in
/// parallel in one process, then keeps two cores and the Swift tasks' pool far busier than a
/// bound on scheduling latency assumes. A test scales by ``slowdown`` only the slack it leaves the
/// machine, never what it checks the code promises (a poll interval, a time limit, a count).
package enum ThreadSanitizer {
    /// Whether the sanitizer's runtime is in this process: it exports `__tsan_init`.
    package static let isActive: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        defer { if let process { dlclose(process) } }
        return dlsym(process, "__tsan_init") != nil
    }()

    /// How many times the machine's slack stretches: 1 without the sanitizer.
    package static var slowdown: Int { isActive ? 8 : 1 }
}
