public import Foundation

/// One field of a CSV row, written by ``CSVWriter`` in a locale-independent form.
public enum CSVField: Sendable, Hashable {
    /// Text, quoted when it holds a comma, a double quote, CR or LF. An empty string is
    /// written as `""`, so that it reads back differently from ``null``.
    case text(String)
    /// An integer in plain decimal digits (`-42`).
    case integer(Int)
    /// A floating-point number in its shortest round-trip form (see ``CSVWriter``).
    case double(Double)
    /// A date in ISO 8601 UTC, e.g. `2014-08-29T14:02:09.299382Z` (see ``CSVWriter``).
    case date(Date)
    /// A missing value: an empty field.
    case null
}

extension CSVField {
    /// `.text(value)`, or `.null` when `value` is nil.
    public static func text(_ value: String?) -> CSVField {
        value.map { .text($0) } ?? .null
    }

    /// `.integer(value)`, or `.null` when `value` is nil.
    public static func integer(_ value: Int?) -> CSVField {
        value.map { .integer($0) } ?? .null
    }

    /// `.double(value)`, or `.null` when `value` is nil.
    public static func double(_ value: Double?) -> CSVField {
        value.map { .double($0) } ?? .null
    }

    /// `.date(value)`, or `.null` when `value` is nil.
    public static func date(_ value: Date?) -> CSVField {
        value.map { .date($0) } ?? .null
    }
}
