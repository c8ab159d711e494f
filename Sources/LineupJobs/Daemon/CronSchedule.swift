public import Foundation

/// A cron expression of five fields, read in UTC: minute (0–59), hour (0–23), day of the month
/// (1–31), month (1–12), day of the week (0–7, 0 and 7 both Sunday). A field is `*`, a number,
/// a range `a-b`, a step `*/n` or `a-b/n`, or a list of those separated by commas. As in
/// cron(8), when both the day of the month and the day of the week are restricted, a day that
/// matches either fires.
///
/// ```swift
/// let nightly = try CronSchedule("0 3 * * *")     // 03:00 UTC every day
/// nightly.previousFireTime(atOrBefore: now)        // the last 03:00 at or before now
/// ```
public struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let description: String
    private let minutes: Set<Int>
    private let hours: Set<Int>
    private let daysOfMonth: Set<Int>
    private let months: Set<Int>
    private let daysOfWeek: Set<Int>
    private let daysOfMonthRestricted: Bool
    private let daysOfWeekRestricted: Bool

    /// How far ``previousFireTime(atOrBefore:)`` looks back: an expression that has not fired in
    /// five years (`0 0 30 2 *`, February 30) never fires, and is refused when it is parsed.
    static let horizonInDays = 5 * 366

    /// Parses `expression`.
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` saying which field is
    ///   wrong, or that the expression never fires.
    public init(_ expression: String) throws(DaemonError) {
        let fields = expression.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 5 else {
            throw Self.invalid(expression, "a cron expression has 5 fields (minute hour day month weekday); found \(fields.count)")
        }
        description = expression
        minutes = try Self.values(of: fields[0], named: "minute", in: 0...59, expression)
        hours = try Self.values(of: fields[1], named: "hour", in: 0...23, expression)
        daysOfMonth = try Self.values(of: fields[2], named: "day of the month", in: 1...31, expression)
        months = try Self.values(of: fields[3], named: "month", in: 1...12, expression)
        // 7 is Sunday too, as in cron(8).
        daysOfWeek = Set(try Self.values(of: fields[4], named: "day of the week", in: 0...7, expression).map { $0 % 7 })
        daysOfMonthRestricted = fields[2] != "*"
        daysOfWeekRestricted = fields[4] != "*"
        let farFuture = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        guard previousFireTime(atOrBefore: farFuture) != nil else {
            throw Self.invalid(expression, "it never fires (no such day in five years)")
        }
    }

    /// The latest time at or before `date` at which the schedule fires (a whole minute, UTC);
    /// nil if there is none in the five years before.
    public func previousFireTime(atOrBefore date: Date) -> Date? {
        let calendar = Self.calendar
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        guard var day = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) else {
            return nil
        }
        // On the first day only the times up to `date` count; on the days before, any time.
        var latest = (hour: parts.hour ?? 23, minute: parts.minute ?? 59)
        for _ in 0..<Self.horizonInDays {
            if matches(day: day), let time = latestTime(atOrBefore: latest) {
                return day.addingTimeInterval(Double(time.hour * 3_600 + time.minute * 60))
            }
            guard let before = calendar.date(byAdding: .day, value: -1, to: day) else { return nil }
            day = before
            latest = (23, 59)
        }
        return nil
    }

    private func matches(day: Date) -> Bool {
        let parts = Self.calendar.dateComponents([.day, .month, .weekday], from: day)
        guard let dayOfMonth = parts.day, let month = parts.month, let weekday = parts.weekday, months.contains(month) else {
            return false
        }
        let dayOfWeek = weekday - 1  // Calendar: 1 is Sunday
        let monthDayMatches = daysOfMonth.contains(dayOfMonth)
        let weekDayMatches = daysOfWeek.contains(dayOfWeek)
        if daysOfMonthRestricted && daysOfWeekRestricted {
            return monthDayMatches || weekDayMatches
        }
        return monthDayMatches && weekDayMatches
    }

    private func latestTime(atOrBefore limit: (hour: Int, minute: Int)) -> (hour: Int, minute: Int)? {
        for hour in hours.sorted(by: >) where hour <= limit.hour {
            let minuteLimit = hour == limit.hour ? limit.minute : 59
            if let minute = minutes.filter({ $0 <= minuteLimit }).max() {
                return (hour, minute)
            }
        }
        return nil
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func values(
        of field: Substring, named name: String, in range: ClosedRange<Int>, _ expression: String
    ) throws(DaemonError) -> Set<Int> {
        var values: Set<Int> = []
        for item in field.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if parts.count == 2 {
                guard let number = Int(parts[1]), number >= 1 else {
                    throw invalid(expression, "the \(name) field has a step that is not a whole number above 0: \(item)")
                }
                step = number
            }
            let span: ClosedRange<Int>
            if parts[0] == "*" {
                span = range
            } else if let dash = parts[0].firstIndex(of: "-") {
                guard let low = Int(parts[0][..<dash]), let high = Int(parts[0][parts[0].index(after: dash)...]), low <= high,
                    range.contains(low), range.contains(high)
                else {
                    throw invalid(expression, "the \(name) field has a range outside \(range.lowerBound)-\(range.upperBound): \(item)")
                }
                span = low...high
            } else {
                guard let value = Int(parts[0]), range.contains(value) else {
                    throw invalid(expression, "the \(name) field must be from \(range.lowerBound) to \(range.upperBound); found \(item)")
                }
                // `5/15` means 5, 20, 35, 50, as in cron(8).
                span = parts.count == 2 ? value...range.upperBound : value...value
            }
            values.formUnion(stride(from: span.lowerBound, through: span.upperBound, by: step))
        }
        return values
    }

    private static func invalid(_ expression: String, _ message: String) -> DaemonError {
        DaemonError(.invalidConfiguration, path: nil, "cron expression \"\(expression)\": \(message)")
    }
}
