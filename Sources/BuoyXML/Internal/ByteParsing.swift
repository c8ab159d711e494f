/// Parsing of numbers and trimming of tokens straight from UTF-8 bytes, with no Foundation
/// formatter and no intermediate `String` on the common path.
enum ByteParsing {
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `bytes` without leading and trailing ASCII white space.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// Powers of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The decimal number `bytes` spell (optional sign, digits, one decimal separator, an
    /// optional exponent), or `nil` for anything else (hex, `inf`, `nan`, stray characters).
    ///
    /// The common case (at most 15 significant digits, no exponent) is computed as an exact
    /// integer divided by an exact power of ten, which IEEE division rounds correctly, so the
    /// result equals `strtod`'s. Anything else falls back to Swift's locale-independent parser.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, decimalSeparator: UInt8 = UInt8(ascii: ".")) -> Double? {
        let count = bytes.count
        guard count > 0 else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenSeparator = false
        var simple = true
        var anyDigit = false
        while index < count {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                anyDigit = true
                if mantissa != 0 || byte != 0x30 { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(byte - 0x30)
                if seenSeparator { fractionDigits += 1 }
            } else if byte == decimalSeparator && !seenSeparator {
                seenSeparator = true
            } else {
                simple = false
                break
            }
            index += 1
        }
        if simple {
            guard anyDigit else { return nil }
            guard digits <= 15, fractionDigits <= 22 else {
                return slowDecimal(bytes, decimalSeparator: decimalSeparator)
            }
            let magnitude = Double(mantissa) / exactPowersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }
        return slowDecimal(bytes, decimalSeparator: decimalSeparator)
    }

    private static func slowDecimal(_ bytes: UnsafeBufferPointer<UInt8>, decimalSeparator: UInt8) -> Double? {
        var text = [UInt8]()
        text.reserveCapacity(bytes.count)
        var sawDigit = false
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                sawDigit = true
                text.append(byte)
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "e"), UInt8(ascii: "E"):
                text.append(byte)
            case decimalSeparator:
                text.append(UInt8(ascii: "."))
            default:
                return nil
            }
        }
        guard sawDigit else { return nil }
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// The value of `digitCount` ASCII digits at `offset`, or `nil` if one is not a digit.
    @inline(__always)
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ digitCount: Int) -> Int? {
        guard offset >= 0, offset + digitCount <= bytes.count else { return nil }
        var value = 0
        for index in offset..<(offset + digitCount) {
            let byte = bytes[index]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
