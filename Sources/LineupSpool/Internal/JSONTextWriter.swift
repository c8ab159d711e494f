import Foundation

/// Writes a ``JSONValue`` as JSON text, byte for byte as `JSONEncoder` writes it with
/// `.sortedKeys` and `.withoutEscapingSlashes` (plus `.prettyPrinted` in the pretty style):
/// keys in the order of their UTF-8 bytes; two spaces of indentation and `"key" : value` when
/// pretty; a number as Swift prints it, without a trailing `.0` (but for a whole number from
/// 2^53 on, written as its exact digits: see below); `"`, `\`, and control characters escaped,
/// the rest as UTF-8.
///
/// By hand because the spool writes one of these per job and per enqueue: through
/// `JSONEncoder`'s generic machinery a result report took about 7 µs, which in the spool
/// benchmark was the largest user-space cost of a job (a tenth of the daemon's CPU once thread
/// switches are counted); written here it takes a fraction of that. `JSONTextTests`
/// holds it to `JSONEncoder`'s output.
package struct JSONTextWriter {
    package enum Style {
        /// No whitespace at all (job files).
        case compact
        /// One member or element a line, indented by two spaces a level (reports people read).
        case pretty
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private(set) var bytes: [UInt8] = []
    private let style: Style

    init(style: Style) {
        self.style = style
        bytes.reserveCapacity(256)
    }

    /// The text of `value`.
    ///
    /// - Throws: ``SpoolError`` with code ``SpoolError/Code/invalidField`` for a number that is
    ///   not finite (JSON has no NaN or infinity).
    package static func text(of value: JSONValue, style: Style) throws(SpoolError) -> [UInt8] {
        var writer = JSONTextWriter(style: style)
        try writer.write(value, level: 0)
        return writer.bytes
    }

    private mutating func write(_ value: JSONValue, level: Int) throws(SpoolError) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .integer(let number):
            append(String(number))
        case .number(let number):
            guard number.isFinite else {
                throw SpoolError(
                    code: .invalidField, path: nil, message: "cannot write \(number) as JSON (only finite numbers)")
            }
            // A whole number from 2^53 up to Int64's range as its exact digits: its shortest
            // round-trip form (`1.1111111111155555e+17`) is read back by JSONDecoder as the
            // integer those digits spell (…550), which is not this double (…552), so a job file
            // changed through encoding (found by the job-file fuzzer). JSONEncoder writes the
            // short form; below 2^53 the two agree.
            if abs(number) >= 9_007_199_254_740_992, let whole = Int64(exactly: number) {
                append(String(whole))
                return
            }
            // What JSONEncoder writes: Swift's shortest round-trip form, `3` rather than `3.0`.
            var text = number.description
            if text.hasSuffix(".0") {
                text.removeLast(2)
            }
            append(text)
        case .string(let text):
            writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                try write(element, level: level + 1)
            }
            close(UInt8(ascii: "]"), level: level, empty: elements.isEmpty)
        case .object(let members):
            // JSONEncoder's order: the keys' UTF-8 bytes, not `String`'s Unicode-aware `<`.
            try writeObject(members.sorted { Self.precedes($0.key, $1.key) }, level: level)
        }
    }

    private static func precedes(_ key: String, _ other: String) -> Bool {
        key.utf8.lexicographicallyPrecedes(other.utf8)
    }

    private mutating func writeObject(_ members: [(key: String, value: JSONValue)], level: Int) throws(SpoolError) {
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline(level + 1)
            writeString(member.key)
            append(style == .pretty ? " : " : ":")
            try write(member.value, level: level + 1)
        }
        close(UInt8(ascii: "}"), level: level, empty: members.isEmpty)
    }

    /// JSONEncoder's pretty style closes an empty container on a line of its own too, after an
    /// empty line.
    private mutating func close(_ bracket: UInt8, level: Int, empty: Bool) {
        if empty { newline(0) }
        newline(level)
        bytes.append(bracket)
    }

    private mutating func newline(_ level: Int) {
        guard style == .pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // The bytes between two that need an escape go in as one run: most strings have none.
            var runStart = 0
            for (position, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                writeEscape(of: byte)
                runStart = position + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscape(of byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append(#"\""#)
        case UInt8(ascii: "\\"): append(#"\\"#)
        case 0x08: append(#"\b"#)
        case 0x0C: append(#"\f"#)
        case UInt8(ascii: "\n"): append(#"\n"#)
        case UInt8(ascii: "\r"): append(#"\r"#)
        case UInt8(ascii: "\t"): append(#"\t"#)
        default:
            append(#"\u00"#)
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
