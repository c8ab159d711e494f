#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A UTC time written into a fixed-width template: the times in job names
/// (`20261122T193512.123456Z`, ``jobName``) and in reports (`2026-11-22T19:35:12.123Z`,
/// ``report``). One goes into every job's name and two into its report, so the digits are put
/// straight into place rather than built up from strings.
struct TimestampTemplate {
    /// The text with every digit zero.
    let template: String
    /// The index of each field's last digit.
    let ends: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Int)
    let fractionDigits: Int

    static let jobName = TimestampTemplate(
        template: "00000000T000000.000000Z", ends: (3, 5, 7, 10, 12, 14, 21), fractionDigits: 6)
    static let report = TimestampTemplate(
        template: "0000-00-00T00:00:00.000Z", ends: (3, 6, 9, 12, 15, 18, 22), fractionDigits: 3)

    /// The time `seconds` after the Unix epoch, and `fraction` (in units of the template's last
    /// fraction digit) after that.
    func text(seconds: Int64, fraction: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = Array(template.utf8)
        func put(_ value: Int, width: Int, endingAt end: Int) {
            var value = value
            for index in stride(from: end, to: end - width, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, width: 4, endingAt: ends.year)
        put(Int(parts.tm_mon) + 1, width: 2, endingAt: ends.month)
        put(Int(parts.tm_mday), width: 2, endingAt: ends.day)
        put(Int(parts.tm_hour), width: 2, endingAt: ends.hour)
        put(Int(parts.tm_min), width: 2, endingAt: ends.minute)
        put(Int(parts.tm_sec), width: 2, endingAt: ends.second)
        put(fraction, width: fractionDigits, endingAt: ends.fraction)
        return String(decoding: text, as: UTF8.self)
    }
}
