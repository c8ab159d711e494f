/// Reads `YYYY-MM-DDTHH:MM:SS[.f{1,6}]Z` back to microseconds since the Unix epoch, with
/// days counted from the civil date (Howard Hinnant's `days_from_civil`, the inverse of the
/// writer's algorithm) so that the fuzzer checks the writer against a second implementation.
enum ISO8601Microseconds {
    static func parse(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int64(bytes[index] - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var microsecond: Int64 = 0
        if bytes.count > 20 {
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...6).contains(digits), bytes[bytes.count - 2] != UInt8(ascii: "0"),
                let fraction = number(20..<20 + digits)
            else { return nil }
            microsecond = fraction
            for _ in digits..<6 { microsecond *= 10 }
        } else {
            guard bytes[19] == UInt8(ascii: "Z") else { return nil }
        }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return seconds * 1_000_000 + microsecond
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
