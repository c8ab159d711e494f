/// A W3C Trace Context `traceparent` value (<https://www.w3.org/TR/trace-context/#traceparent-header>),
/// checked: what a job file's `traceparent` field holds, so that the attempt's span is a child
/// of the span that enqueued the job.
///
/// ```swift
/// let parent = try TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
/// parent.traceID    // "4bf92f3577b34da6a3ce929d0e0e4736"
/// parent.parentID   // "00f067aa0ba902b7"
/// parent.isSampled  // true
/// ```
///
/// Version `00` is read exactly; a later version is read by its first four parts, as the
/// specification asks, and keeps what follows them.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// The value as it was given (lower-case hex).
    public let text: String
    /// The trace's id: 32 lower-case hex digits, not all zero.
    public var traceID: String { String(text.utf8.dropFirst(3).prefix(32))! }
    /// The id of the span that enqueued the job: 16 lower-case hex digits, not all zero.
    public var parentID: String { String(text.utf8.dropFirst(36).prefix(16))! }
    /// The trace flags, of which the lowest bit says that the enqueuer's span was sampled.
    public let flags: UInt8

    /// Whether the enqueuer's span was sampled (the `sampled` flag).
    public var isSampled: Bool { flags & 1 == 1 }

    /// Checks `text` as a `traceparent` value.
    ///
    /// - Parameter field: the job file's field, for the error (the value itself is never in it).
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` naming `field` and what is wrong.
    public init(_ text: String, field: String = "traceparent") throws(SpoolError) {
        func invalid(_ problem: String) -> SpoolError {
            SpoolError(
                code: .invalidField, path: nil,
                message: "field `\(field)` must be a W3C traceparent "
                    + "(00-<32 hex digits of trace id>-<16 hex digits of parent id>-<2 hex digits of flags>): \(problem)")
        }
        let bytes = Array(text.utf8)
        guard bytes.count >= 55 else { throw invalid("it has \(bytes.count) characters, not 55") }
        let dashes = [2, 35, 52]
        for index in dashes where bytes[index] != UInt8(ascii: "-") {
            throw invalid("no `-` after its \(["version", "trace id", "parent id"][dashes.firstIndex(of: index)!])")
        }
        func hex(_ range: Range<Int>, _ name: String) throws(SpoolError) -> ArraySlice<UInt8> {
            let part = bytes[range]
            guard part.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) })
            else { throw invalid("\(name) not lower-case hex") }
            return part
        }
        let version = try hex(0..<2, "its version is")
        guard version.elementsEqual("ff".utf8) == false else { throw invalid("version ff is invalid") }
        guard try hex(3..<35, "its trace id is").contains(where: { $0 != UInt8(ascii: "0") }) else {
            throw invalid("its trace id is all zeros")
        }
        guard try hex(36..<52, "its parent id is").contains(where: { $0 != UInt8(ascii: "0") }) else {
            throw invalid("its parent id is all zeros")
        }
        let flagDigits = try hex(53..<55, "its flags are")
        if version.elementsEqual("00".utf8) {
            guard bytes.count == 55 else { throw invalid("a version 00 value has 55 characters, this one \(bytes.count)") }
        } else if bytes.count > 55, bytes[55] != UInt8(ascii: "-") {
            throw invalid("no `-` after its flags")
        }
        self.text = text
        self.flags = UInt8(String(decoding: flagDigits, as: UTF8.self), radix: 16)!
    }

    public var description: String { text }
}
