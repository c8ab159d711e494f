import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name of a job file in the spool: `<name>[.i<interruptions>].job.json`.
///
/// `name` is fixed when the job is enqueued and never changes; it is what reports and logs
/// use. The optional `.i<N>` part counts the times a daemon stopped (crashed) while the job
/// was in `active/`. Keeping the count in the name makes it survive crashes with no second
/// file to keep in step, and keeps the name order in `new/` the enqueue order, since
/// `name` comes first.
struct JobFileName: Hashable, Sendable {
    static let suffix = ".job.json"

    let name: String
    let interruptions: Int

    init(name: String, interruptions: Int = 0) {
        self.name = name
        self.interruptions = interruptions
    }

    /// Parses a directory entry; nil when it does not look like a job file (dotfiles, editor
    /// swap files, reports, anything not ending in `.job.json`).
    init?(fileName: String) {
        guard !fileName.hasPrefix("."), fileName.hasSuffix(Self.suffix) else {
            return nil
        }
        let stem = fileName.dropLast(Self.suffix.count)
        guard !stem.isEmpty else { return nil }
        var name = String(stem)
        var interruptions = 0
        if let dot = stem.lastIndex(of: "."), dot > stem.startIndex {
            let tail = stem[stem.index(after: dot)...]
            let digits = tail.dropFirst()
            if tail.first == "i", (1...6).contains(digits.count),
                digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let count = Int(digits), count > 0
            {
                name = String(stem[..<dot])
                interruptions = count
            }
        }
        self.name = name
        self.interruptions = interruptions
    }

    var fileName: String {
        interruptions == 0 ? name + Self.suffix : "\(name).i\(interruptions)\(Self.suffix)"
    }

    var resultReportName: String { name + ".result.json" }
    var errorReportName: String { name + ".error.json" }

    func withInterruptions(_ count: Int) -> JobFileName {
        JobFileName(name: name, interruptions: count)
    }
}

/// Makes job names that sort by enqueue time and are unique across processes:
/// `20261122T193512.123456Z-<pid>-<process token>-<counter>`.
///
/// The time is UTC with microseconds and strictly increases within a process (a clock that
/// stands still or steps back is bumped by one microsecond), so one producer's jobs are
/// claimed in the order it enqueued them. The pid and a random per-process token keep two
/// processes apart even in the same microsecond (also across pid namespaces sharing a
/// spool); the counter keeps names unique within a process whatever the clock does.
final class JobNameGenerator: Sendable {
    static let shared = JobNameGenerator()

    private struct State {
        var lastMicroseconds: Int64 = 0
        var counter: UInt64 = 0
    }

    private let state = LockedValue(State())
    private let processPart: String

    private init() {
        let token = String(UInt32.random(in: 0..<(1 << 24)), radix: 16)
        processPart = "\(getpid())-\(String(repeating: "0", count: 6 - token.count))\(token)"
    }

    func next(now: Date = Date()) -> String {
        let wallClock = Int64((now.timeIntervalSince1970 * 1_000_000).rounded(.down))
        let (microseconds, counter) = state.withLock { state in
            state.lastMicroseconds = max(wallClock, state.lastMicroseconds + 1)
            state.counter += 1
            return (state.lastMicroseconds, state.counter)
        }
        return "\(Self.timestamp(microseconds: microseconds))-\(processPart)-\(counter)"
    }

    /// `YYYYMMDDTHHMMSS.ffffffZ`, fixed width so that names sort by time.
    static func timestamp(microseconds: Int64) -> String {
        var seconds = time_t(microseconds / 1_000_000)
        let fraction = Int(microseconds % 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(23)
        append(Int(parts.tm_year) + 1900, width: 4, to: &text)
        append(Int(parts.tm_mon) + 1, width: 2, to: &text)
        append(Int(parts.tm_mday), width: 2, to: &text)
        text.append("T")
        append(Int(parts.tm_hour), width: 2, to: &text)
        append(Int(parts.tm_min), width: 2, to: &text)
        append(Int(parts.tm_sec), width: 2, to: &text)
        text.append(".")
        append(fraction, width: 6, to: &text)
        text.append("Z")
        return text
    }

    private static func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width {
            text.append(String(repeating: "0", count: width - digits.count))
        }
        text.append(digits)
    }
}
