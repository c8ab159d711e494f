import Foundation

/// The byte encoders behind ``CSVWriter``. They append straight to the output buffer, with
/// no formatter objects and no intermediate strings for text, integers and dates: an
/// export formats a million dates, and `ISO8601DateFormatter` costs microseconds each.
enum CSVEncoding {
    static let comma: UInt8 = 0x2C
    static let quote: UInt8 = 0x22
    static let carriageReturn: UInt8 = 0x0D
    static let lineFeed: UInt8 = 0x0A
    private static let zero: UInt8 = 0x30
    private static let minus: UInt8 = 0x2D

    // MARK: Text

    /// RFC 4180 quoting: only when needed, with inner quotes doubled; `""` for an empty
    /// string so that it differs from a NULL (nothing at all).
    static func appendText(_ text: String, to buffer: inout [UInt8]) {
        guard !text.isEmpty else {
            buffer.append(quote)
            buffer.append(quote)
            return
        }
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: needsQuoting) else {
                buffer.append(contentsOf: bytes)
                return
            }
            buffer.append(quote)
            for byte in bytes {
                if byte == quote { buffer.append(quote) }
                buffer.append(byte)
            }
            buffer.append(quote)
        }
    }

    private static func needsQuoting(_ byte: UInt8) -> Bool {
        byte == comma || byte == quote || byte == carriageReturn || byte == lineFeed
    }

    // MARK: Numbers

    static func appendInteger(_ value: Int, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(minus) }
        appendDigits(of: value.magnitude, to: &buffer)
    }

    private static func appendDigits(of value: UInt, to buffer: inout [UInt8]) {
        let start = buffer.count
        var rest = value
        repeat {
            buffer.append(zero &+ UInt8(truncatingIfNeeded: rest % 10))
            rest /= 10
        } while rest > 0
        reverseTail(of: &buffer, from: start)
    }

    /// Reverses `buffer[start...]` in place (a slice's `reverse()` would copy it).
    private static func reverseTail(of buffer: inout [UInt8], from start: Int) {
        var low = start
        var high = buffer.count - 1
        while low < high {
            buffer.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Swift's shortest round-trip digits (`description`), with its exponent notation
    /// expanded to plain decimals for magnitudes in [1e-6, 1e21): `1e-05` → `0.00001`,
    /// `1e+16` → `10000000000000000.0`.
    static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        let shortest = value.description
        let magnitude = value.magnitude
        guard magnitude >= 1e-6, magnitude < 1e21, let exponentIndex = shortest.utf8.firstIndex(of: 0x65) else {
            buffer.append(contentsOf: shortest.utf8)
            return
        }
        // Swift writes `[-]d[.ddd]e±xx` here.
        var mantissa = shortest.utf8[..<exponentIndex]
        guard let exponent = Int(String(decoding: shortest.utf8[shortest.utf8.index(after: exponentIndex)...], as: UTF8.self)) else {
            buffer.append(contentsOf: shortest.utf8)
            return
        }
        if mantissa.first == minus {
            buffer.append(minus)
            mantissa = mantissa.dropFirst()
        }
        let point: UInt8 = 0x2E
        let digits = mantissa.filter { $0 != point }
        let pointPosition = (mantissa.firstIndex(of: point).map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count) + exponent
        if pointPosition <= 0 {
            buffer.append(zero)
            buffer.append(point)
            buffer.append(contentsOf: repeatElement(zero, count: -pointPosition))
            buffer.append(contentsOf: digits)
        } else if pointPosition >= digits.count {
            buffer.append(contentsOf: digits)
            buffer.append(contentsOf: repeatElement(zero, count: pointPosition - digits.count))
            buffer.append(point)
            buffer.append(zero)
        } else {
            buffer.append(contentsOf: digits[..<pointPosition])
            buffer.append(point)
            buffer.append(contentsOf: digits[pointPosition...])
        }
    }

    // MARK: Dates

    /// Microseconds from 2001-01-01 (Foundation's reference date) to the Unix epoch.
    private static let referenceDateInUnixMicroseconds: Int64 = 978_307_200_000_000
    /// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in microseconds since 2001-01-01.
    private static let earliestMicroseconds = -63_145_526_400_000_000.0
    private static let endMicroseconds = 252_423_993_600_000_000.0

    /// ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`: the fraction rounded to the
    /// microsecond, present only when non-zero, without trailing zeros. Returns false,
    /// appending nothing, for a date outside years 0000–9999 (or NaN).
    static func appendDate(_ date: Date, to buffer: inout [UInt8]) -> Bool {
        // From the reference date, not timeIntervalSince1970: one addition fewer to round.
        let sinceReference = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        guard sinceReference >= earliestMicroseconds, sinceReference < endMicroseconds else { return false }
        let unixMicroseconds = Int64(sinceReference) + referenceDateInUnixMicroseconds

        let (seconds, microsecond) = floorDivision(unixMicroseconds, 1_000_000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceUnixEpoch: days)

        appendFourDigits(year, to: &buffer)
        buffer.append(minus)
        appendTwoDigits(month, to: &buffer)
        buffer.append(minus)
        appendTwoDigits(day, to: &buffer)
        buffer.append(0x54)  // T
        appendTwoDigits(secondOfDay / 3_600, to: &buffer)
        buffer.append(0x3A)  // :
        appendTwoDigits(secondOfDay / 60 % 60, to: &buffer)
        buffer.append(0x3A)
        appendTwoDigits(secondOfDay % 60, to: &buffer)
        if microsecond != 0 {
            var fraction = microsecond
            var width = 6
            while fraction % 10 == 0 {
                fraction /= 10
                width -= 1
            }
            buffer.append(0x2E)  // .
            appendPadded(fraction, width: width, to: &buffer)
        }
        buffer.append(0x5A)  // Z
        return true
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    /// The proleptic Gregorian date of a day count (Howard Hinnant's `civil_from_days`).
    private static func civilDate(daysSinceUnixEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// 0...99 in two digits.
    private static func appendTwoDigits(_ value: Int64, to buffer: inout [UInt8]) {
        buffer.append(zero &+ UInt8(truncatingIfNeeded: value / 10))
        buffer.append(zero &+ UInt8(truncatingIfNeeded: value % 10))
    }

    /// 0...9999 in four digits.
    private static func appendFourDigits(_ value: Int64, to buffer: inout [UInt8]) {
        appendTwoDigits(value / 100, to: &buffer)
        appendTwoDigits(value % 100, to: &buffer)
    }

    /// A non-negative number in exactly `width` digits, zero-padded on the left.
    private static func appendPadded(_ value: Int64, width: Int, to buffer: inout [UInt8]) {
        let start = buffer.count
        var rest = value
        for _ in 0..<width {
            buffer.append(zero &+ UInt8(truncatingIfNeeded: rest % 10))
            rest /= 10
        }
        reverseTail(of: &buffer, from: start)
    }
}
