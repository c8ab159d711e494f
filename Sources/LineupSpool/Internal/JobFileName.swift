import Foundation
import LineupLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name of a job file in the spool:
/// `<name>[.p<priority>][.t<not before>][.i<interruptions>][.a<attempts>][.c<claim>].job.json`.
///
/// `name` is fixed when the job is enqueued and never changes; it is what people, logs and
/// `after` lists see. The tags after it are the job's own state, kept in the name so that each
/// change is one atomic `rename(2)` and survives any crash with no second file to keep in step:
///
/// - `.p<digit>` is the job's `priority` when it is not the default (``JobFile/defaultPriority``):
///   the listing of `new/` orders by it before the name, without reading a file (see
///   `SpoolDirectory.queuedFileNames()`);
/// - `.t<seconds>` is the job's `notBefore` time (Unix seconds, rounded up): claimers skip the
///   file until then without reading it, so a job scheduled for next week costs nothing now;
/// - `.i<N>` counts the times a daemon stopped (crashed) while the job was in `active/`;
/// - `.a<N>` counts the attempts that failed with a retryable error, so that `maxAttempts`
///   bounds a job across restarts;
/// - `.c<claim>` is the claim: twelve hexadecimal digits drawn afresh each time a job is
///   claimed. A job file in `active/`, `done/` or `failed/` always has one, and its report
///   shares its stem (``stem``), so two jobs that share a name (a nightly job enqueued by hand
///   every night, a file moved back from `failed/` to retry it) never share a file or a report.
///   A file back in `new/` drops its claim, unless another file there already has its name.
///
/// The tags come after `name`, so the name order in `new/` stays the enqueue order (within a
/// priority).
///
/// A bulk file (many jobs, one a line) has the same name and tags, with `.jobs.jsonl` for
/// `.job.json` (``isBulk``); it never carries `.a<N>`, since its lines count their failed
/// attempts in its ledger (see `SpoolDirectory+Bulk.swift`), and it keeps its first claim for
/// life, since its ledger is named after it.
struct JobFileName: Hashable, Sendable {
    static let suffix = ".job.json"
    static let bulkSuffix = ".jobs.jsonl"
    static let claimLength = 12

    let name: String
    let notBefore: Int64?
    let interruptions: Int
    let failedAttempts: Int
    let claim: String?
    let isBulk: Bool
    /// The `.p` tag; nil when the name has none, as a job of the default priority is named
    /// (``tag(priority:)``).
    let priority: Int?

    init(
        name: String, notBefore: Int64? = nil, interruptions: Int = 0, failedAttempts: Int = 0, claim: String? = nil,
        isBulk: Bool = false, priority: Int? = nil
    ) {
        self.name = name
        self.priority = priority
        self.notBefore = notBefore
        self.interruptions = interruptions
        self.failedAttempts = failedAttempts
        self.claim = claim
        self.isBulk = isBulk
    }

    /// Parses a directory entry; nil when it does not look like a job file or a bulk file
    /// (dotfiles, editor swap files, reports, anything not ending in `.job.json` or
    /// `.jobs.jsonl`).
    init?(fileName: String) {
        var fileName = fileName
        guard let parsed = fileName.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private static let suffixBytes = Array(suffix.utf8)
    private static let bulkSuffixBytes = Array(bulkSuffix.utf8)

    /// Parses a file name as UTF-8 bytes. Everything the spool reads in a name (the dots, the
    /// suffixes, the tags' letters and digits) is ASCII, so bytes say what characters would say,
    /// without breaking the name into grapheme clusters at every step back: that parse, made for
    /// every entry each time `new/` is listed, was the largest cost of a daemon running single
    /// job files.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JobFileName? {
        guard bytes.first != UInt8(ascii: ".") else { return nil }
        func hasSuffix(_ suffix: [UInt8]) -> Bool {
            bytes.count >= suffix.count && bytes[(bytes.count - suffix.count)...].elementsEqual(suffix)
        }
        let isBulk = hasSuffix(bulkSuffixBytes)
        guard isBulk || hasSuffix(suffixBytes) else { return nil }
        // The stem is bytes[..<end]; each tag found at its end moves `end` back to its dot.
        var end = bytes.count - (isBulk ? bulkSuffixBytes.count : suffixBytes.count)
        guard end > 0 else { return nil }
        // The last dot before `end`, found once for each `end`: a name without tags (the usual
        // one) is looked at for five letters, and a generated name has a dot deep in its
        // timestamp, which each search walked back to.
        var dotEnd = -1
        var lastDot = 0
        /// The tag that ends the stem, if it starts with `letter`: where its dot is, and what
        /// follows the letter.
        func tag(_ letter: Character) -> (dot: Int, value: UnsafeBufferPointer<UInt8>)? {
            if dotEnd != end {
                var dot = end - 1
                while dot > 0 && bytes[dot] != UInt8(ascii: ".") { dot -= 1 }
                (dotEnd, lastDot) = (end, dot)
            }
            let dot = lastDot
            guard dot > 0, dot + 1 < end, bytes[dot + 1] == letter.asciiValue else { return nil }
            return (dot, UnsafeBufferPointer(rebasing: bytes[(dot + 2)..<end]))
        }
        var claim: String?
        var failedAttempts = 0
        var interruptions = 0
        var notBefore: Int64?
        if let (dot, value) = tag("c"), isClaim(value) {
            claim = String(decoding: value, as: UTF8.self)
            end = dot
        }
        if let (dot, value) = tag("a"), let count = count(value) {
            failedAttempts = count
            end = dot
        }
        if let (dot, value) = tag("i"), let count = count(value) {
            interruptions = count
            end = dot
        }
        if let (dot, value) = tag("t"), let seconds = number(value, length: 1...12) {
            notBefore = seconds
            end = dot
        }
        var priority: Int?
        if let (dot, value) = tag("p"), value.count == 1, let digit = number(value, length: 1...1) {
            priority = Int(digit)
            end = dot
        }
        guard !(isBulk && failedAttempts > 0) else { return nil }
        return JobFileName(
            name: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self), notBefore: notBefore,
            interruptions: interruptions, failedAttempts: failedAttempts, claim: claim, isBulk: isBulk, priority: priority)
    }

    /// The file name without `.job.json`: what its report is named after.
    var stem: String {
        var stem = name
        if let priority { stem += ".p\(priority)" }
        if let notBefore { stem += ".t\(notBefore)" }
        if interruptions > 0 { stem += ".i\(interruptions)" }
        if failedAttempts > 0 { stem += ".a\(failedAttempts)" }
        if let claim { stem += ".c" + claim }
        return stem
    }

    var fileName: String { stem + (isBulk ? Self.bulkSuffix : Self.suffix) }

    /// The name it was enqueued under, without the spool's tags.
    var enqueuedFileName: String { name + (isBulk ? Self.bulkSuffix : Self.suffix) }

    /// For a bulk file, its ledger of every line's outcome, renamed from `active/` into `done/`
    /// once each line has one.
    var resultReportName: String { stem + (isBulk ? ".results.jsonl" : ".result.json") }
    var errorReportName: String { stem + ".error.json" }

    /// A bulk file's ledger in `active/`: named after the name and the claim only, so that it
    /// stays where it is while the interruption count in the file's name changes.
    var ledgerName: String {
        precondition(isBulk, "only a bulk file has a ledger")
        return name + ".c" + (claim ?? "") + Self.ledgerSuffix
    }

    static let ledgerSuffix = ".ledger.jsonl"

    /// The name and the claim of the bulk file whose ledger (``ledgerName``) is named `fileName`;
    /// nil when `fileName` is not a ledger's name.
    static func bulk(ofLedger fileName: String) -> (name: String, claim: String)? {
        guard !fileName.hasPrefix("."), fileName.hasSuffix(ledgerSuffix) else { return nil }
        let stem = fileName.dropLast(ledgerSuffix.count)
        let claim = stem.suffix(claimLength)
        let name = stem.dropLast(claimLength + 2)
        guard claim.count == claimLength, stem.dropLast(claimLength).hasSuffix(".c"), !name.isEmpty else { return nil }
        return (String(name), String(claim))
    }

    /// The name of line `number` of the bulk file `bulk` as a job file of its own (in `failed/`,
    /// should it fail): `<bulk name>.line<N>.c<bulk claim>.job.json`, the same whatever the
    /// bulk's interruptions, so that a line is filed there once.
    static func line(_ number: Int, of bulk: JobFileName) -> JobFileName {
        JobFileName(name: bulk.name + ".line\(number)", claim: bulk.claim)
    }

    func withInterruptions(_ count: Int) -> JobFileName {
        JobFileName(name: name, notBefore: notBefore, interruptions: count, failedAttempts: failedAttempts, claim: claim, isBulk: isBulk, priority: priority)
    }

    func withFailedAttempts(_ count: Int) -> JobFileName {
        JobFileName(name: name, notBefore: notBefore, interruptions: interruptions, failedAttempts: count, claim: claim, isBulk: isBulk, priority: priority)
    }

    func withClaim(_ claim: String?) -> JobFileName {
        JobFileName(name: name, notBefore: notBefore, interruptions: interruptions, failedAttempts: failedAttempts, claim: claim, isBulk: isBulk, priority: priority)
    }

    func withNotBefore(_ seconds: Int64?) -> JobFileName {
        JobFileName(name: name, notBefore: seconds, interruptions: interruptions, failedAttempts: failedAttempts, claim: claim, isBulk: isBulk, priority: priority)
    }

    /// The tag that names a job of `priority`: none for the default, so that the names of most
    /// jobs stay as they were, and sort as they did.
    static func tag(priority: Int) -> Int? {
        priority == JobFile.defaultPriority ? nil : priority
    }

    /// The priority the name says: ``JobFile/defaultPriority`` when it has no tag.
    var effectivePriority: Int { priority ?? JobFile.defaultPriority }

    /// `notBefore` as a Unix time in whole seconds, rounded up so that the tag never lets a
    /// job run early.
    static func seconds(notBefore date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.up))
    }

    /// Whether the tag says the job may not run yet.
    func isScheduled(after now: Date) -> Bool {
        notBefore.map { Double($0) > now.timeIntervalSince1970 } ?? false
    }

    /// A fresh claim: random, so that no two claims of any job ever share one.
    static func newClaim() -> String {
        let digits = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
        return String(repeating: "0", count: claimLength - digits.count) + digits
    }

    /// A count from 1, in at most six digits.
    private static func count(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let count = number(digits, length: 1...6), count > 0 else { return nil }
        return Int(count)
    }

    /// The decimal number `text` spells, when it is only ASCII digits, as many as `length` allows.
    private static func number(_ text: UnsafeBufferPointer<UInt8>, length: ClosedRange<Int>) -> Int64? {
        guard length.contains(text.count) else { return nil }
        var value: Int64 = 0
        for digit in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// Twelve lowercase hexadecimal digits, as ``newClaim()`` draws them.
    private static func isClaim(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        digits.count == claimLength
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
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

    private let state = Locked(State())
    private let processPart: String

    /// A generator of its own; the spool uses ``shared``, whose names are unique in the process.
    init() {
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
        TimestampTemplate.jobName.text(seconds: microseconds / 1_000_000, fraction: Int(microseconds % 1_000_000))
    }
}
