package import Foundation

/// Reading and writing of UTC times by hand: the reader meets one time per SOS row, so no
/// `ISO8601DateFormatter` or `Calendar` is involved.
package enum UTCTimestamp {
    /// Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 4, 6, 9, 11: return 30
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        default: return 31
        }
    }

    /// Seconds since 1970 of a civil UTC time, or `nil` when a field is out of range
    /// (a leap second, 60, is accepted and lands on the next minute).
    static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// An ISO-8601 time with a zone: `yyyy-MM-ddTHH:mm[:ss[.fff…]](Z|±HH[:]MM)`. A time without
    /// a zone is local to somewhere unknown, so it is not accepted.
    static func parseISO8601(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 17,
            let year = ByteParsing.digits(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = ByteParsing.digits(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = ByteParsing.digits(bytes, 8, 2),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            let hour = ByteParsing.digits(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = ByteParsing.digits(bytes, 14, 2)
        else { return nil }
        var index = 16
        var second = 0
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let value = ByteParsing.digits(bytes, index + 1, 2) else { return nil }
            second = value
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHours = ByteParsing.digits(bytes, index + 1, 2) else { return nil }
            index += 3
            var offsetMinutes = 0
            if index < bytes.count {
                if bytes[index] == UInt8(ascii: ":") { index += 1 }
                guard let minutes = ByteParsing.digits(bytes, index, 2) else { return nil }
                offsetMinutes = minutes
                index += 2
            }
            guard offsetHours <= 18, offsetMinutes <= 59 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard index == bytes.count,
            let local = seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: Double(local - offsetSeconds) + fraction)
    }

    /// Appends `date` as `yyyy-MM-ddTHH:mm:ssZ`, with milliseconds when it has a fraction.
    package static func appendISO8601(_ date: Date, to output: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        var whole = Int(interval.rounded(.down))
        var millis = Int(((interval - Double(whole)) * 1000).rounded())
        if millis == 1000 {
            whole += 1
            millis = 0
        }
        var days = whole / 86_400
        var secondsOfDay = whole % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let civil = civilDate(daysSinceEpoch: days)
        appendDigits(civil.year, 4, &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(civil.month, 2, &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(civil.day, 2, &output)
        output.append(UInt8(ascii: "T"))
        appendDigits(secondsOfDay / 3600, 2, &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay / 60 % 60, 2, &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay % 60, 2, &output)
        if millis != 0 {
            output.append(UInt8(ascii: "."))
            appendDigits(millis, 3, &output)
        }
        output.append(UInt8(ascii: "Z"))
    }

    /// `date` as `yyyy-MM-ddTHH:mm:ssZ`.
    package static func iso8601String(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendISO8601(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendDigits(_ value: Int, _ width: Int, _ output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        if rest >= divisor * 10 {
            // A year past 9999: write every digit rather than truncate.
            output.append(contentsOf: Array(String(value).utf8))
            return
        }
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
