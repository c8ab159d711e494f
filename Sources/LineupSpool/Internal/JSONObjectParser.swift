import Foundation

/// A strict, fast parser of one JSON object: the fast path of ``JobFile/init(data:path:)``.
///
/// Every job the daemon claims is parsed once on the runner's coordinator, where `JSONDecoder`
/// into `[String: JSONValue]` cost about 4.6 µs for a two-field job (it tries each scalar type
/// in turn for every value), a fifth of what the coordinator spends on a bulk job. This parser
/// reads the same object in a single pass.
///
/// It accepts only plain RFC 8259 text, and returns nil for everything else, so that the
/// `JSONDecoder` path decides those files exactly as before: what it allows (a byte order mark,
/// trailing commas, the first of duplicate keys) and what it refuses with its errors (invalid
/// UTF-8 among them). Whatever this parser accepts, `JSONDecoder` reads the same, case for case:
/// the job-file fuzzer checks it on every input it accepts, and `JobFileParsingTests` pins it.
enum JSONObjectParser {
    /// How deep arrays and objects may nest: `JSONDecoder`'s own limit.
    static let maximumDepth = 512

    /// The object, or nil when the text is not one plain JSON object (see the type's notes).
    static func parse(_ data: Data) -> [String: JSONValue]? {
        data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "{"), case let .object(fields)? = parser.value(depth: 0) else {
                return nil
            }
            parser.skipWhitespace()
            return parser.isAtEnd ? fields : nil
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        func peek() -> UInt8? {
            position < bytes.count ? bytes[position] : nil
        }

        mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                position += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            position += 1
            return true
        }

        mutating func consume(literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
                return false
            }
            position += count
            return true
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < JSONObjectParser.maximumDepth, let byte = peek() else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return consume(literal: "true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return consume(literal: "false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return consume(literal: "null") ? .null : nil
            default: return number()
            }
        }

        mutating func object(depth: Int) -> JSONValue? {
            position += 1  // {
            var fields: [String: JSONValue] = [:]
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object(fields) }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let member = value(depth: depth + 1) else { return nil }
                // A duplicate key is left to JSONDecoder, which keeps the first.
                guard fields.updateValue(member, forKey: key) == nil else { return nil }
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return .object(fields) }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            position += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                skipWhitespace()
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return .array(elements) }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        /// A string from its opening quote; nil for a control character, a bad escape, a lone
        /// surrogate or invalid UTF-8.
        mutating func string() -> String? {
            position += 1  // "
            let start = position
            // Most strings have no escape: take their bytes as they are.
            while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { return nil }
                position += 1
            }
            guard let stop = peek() else { return nil }
            if stop == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            var decoded = Array(bytes[start..<position])
            while let byte = peek() {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: decoded, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard appendEscape(to: &decoded) else { return nil }
                case ..<0x20:
                    return nil
                default:
                    decoded.append(byte)
                }
            }
            return nil
        }

        /// Decodes the escape after a backslash into `buffer`, as UTF-8.
        mutating func appendEscape(to buffer: inout [UInt8]) -> Bool {
            guard let byte = peek() else { return false }
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                guard let first = hexQuad() else { return false }
                var scalarValue = UInt32(first)
                if (0xD800...0xDBFF).contains(first) {
                    guard consume(literal: "\\u"), let second = hexQuad(), (0xDC00...0xDFFF).contains(second) else {
                        return false
                    }
                    scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { return false }  // a lone low surrogate
                buffer.append(contentsOf: String(Character(scalar)).utf8)
            default:
                return false
            }
            return true
        }

        mutating func hexQuad() -> UInt16? {
            guard bytes.count - position >= 4 else { return nil }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt16(digit)
                position += 1
            }
            return value
        }

        /// 2^53: below it, a `Double` holds every integer exactly.
        static let exactIntegerLimit: Double = 9_007_199_254_740_992

        /// A number as `JSONValue`'s decoding makes it: an integer when the text is a whole
        /// number that fits `Int` (`1.0`, `2.5e1` and `1e-400` included, as `JSONDecoder` reads
        /// them), otherwise a finite `Double`.
        mutating func number() -> JSONValue? {
            let start = position
            _ = consume(UInt8(ascii: "-"))
            guard let first = peek(), isDigit(first) else { return nil }
            position += 1
            if first != UInt8(ascii: "0") {
                skipDigits()
            } else if let next = peek(), isDigit(next) {
                return nil  // a leading zero
            }
            var isIntegerText = true
            if consume(UInt8(ascii: ".")) {
                isIntegerText = false
                guard skipDigits() else { return nil }
            }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                isIntegerText = false
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard skipDigits() else { return nil }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isIntegerText, let integer = Int(text) {
                return .integer(integer)
            }
            guard let number = Double(text), number.isFinite else { return nil }
            if !isIntegerText, number.rounded(.towardZero) == number {
                // Past 2^53, where a Double no longer holds every integer, JSONDecoder decides
                // by rules of its own (`9007199254740993.0` is that integer, `1.1e17` with a
                // fraction is a number): leave those to it (found by the job-file fuzzer).
                guard number.magnitude < Self.exactIntegerLimit else { return nil }
                return .integer(Int(number))
            }
            return .number(number)
        }

        /// Skips digits; false when there was none.
        @discardableResult
        mutating func skipDigits() -> Bool {
            let start = position
            while let byte = peek(), isDigit(byte) { position += 1 }
            return position > start
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}
