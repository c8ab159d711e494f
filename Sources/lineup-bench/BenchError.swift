import Foundation

/// Why a benchmark could not produce honest figures (a failed save, a wrong row count, a
/// baseline that SQLite refused). Never thrown for a missed target: that is a verdict.
struct BenchError: Error, CustomStringConvertible {
    enum Code: Sendable {
        case usage
        case sqlite
        case verification
        case lineup
    }

    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }

    /// A system call that failed on `path`, with `errno`'s reason: what the raw file-system runs
    /// throw. Make it right after the failed call, before anything else can change `errno`.
    static func systemCall(_ call: String, _ path: String) -> BenchError {
        BenchError(.verification, "\(path): \(call) failed: \(String(cString: strerror(errno)))")
    }
}
