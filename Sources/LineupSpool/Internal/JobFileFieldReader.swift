import Foundation

/// Reads a job file's fields by type. Each reader treats an absent or `null` field as absent, and
/// throws an error that names the field, what it must be, and what was found instead.
struct JobFileFieldReader {
    let fields: [String: JSONValue]
    /// The job file, for errors.
    let path: String?

    func invalid(_ message: String) -> SpoolError {
        SpoolError(code: .invalidField, path: path, message: message)
    }

    /// The field's value; nil when it is absent or `null`.
    private func value(_ name: String) -> JSONValue? {
        switch fields[name] {
        case nil, .null: nil
        case let value?: value
        }
    }

    /// A string that is not empty.
    func string(_ name: String) throws(SpoolError) -> String? {
        switch value(name) {
        case nil:
            return nil
        case .string(let text) where text.isEmpty:
            throw invalid("field `\(name)` must not be empty")
        case .string(let text):
            return text
        case let other?:
            throw invalid("field `\(name)` must be a string, found \(other.typeDescription)")
        }
    }

    /// `true` or `false`.
    func bool(_ name: String) throws(SpoolError) -> Bool? {
        switch value(name) {
        case nil:
            return nil
        case .bool(let flag):
            return flag
        case let other?:
            throw invalid("field `\(name)` must be true or false, found \(other.typeDescription)")
        }
    }

    /// An integer no less than `minimum`.
    func integer(_ name: String, atLeast minimum: Int) throws(SpoolError) -> Int? {
        switch value(name) {
        case nil:
            return nil
        case .integer(let number) where number >= minimum:
            return number
        case .integer:
            throw invalid("field `\(name)` must be at least \(minimum)")
        case let other?:
            throw invalid("field `\(name)` must be an integer, found \(other.typeDescription)")
        }
    }

    /// A number of seconds (an integer or a decimal) that `isValid` accepts; otherwise the error
    /// says that it must be `expected(seconds)`.
    func seconds(
        _ name: String, isValid: (Double) -> Bool, expected: (Double) -> String
    ) throws(SpoolError) -> Double? {
        guard let value = value(name) else { return nil }
        guard let seconds = value.doubleValue else {
            throw invalid("field `\(name)` must be a number of seconds, found \(value.typeDescription)")
        }
        guard isValid(seconds) else {
            throw invalid("field `\(name)` must be \(expected(seconds))")
        }
        return seconds
    }

    /// An array of strings that are not empty, each a `element` (e.g. "a job id"); `elements`
    /// names them together (e.g. "job ids").
    func strings(_ name: String, each element: String, together elements: String) throws(SpoolError) -> [String] {
        switch value(name) {
        case nil:
            return []
        case .array(let values):
            var strings: [String] = []
            strings.reserveCapacity(values.count)
            for (index, value) in values.enumerated() {
                guard case .string(let text) = value else {
                    throw invalid("field `\(name)[\(index)]` must be a string (\(element)), found \(value.typeDescription)")
                }
                guard !text.isEmpty else {
                    throw invalid("field `\(name)[\(index)]` must not be empty")
                }
                strings.append(text)
            }
            return strings
        case let other?:
            throw invalid("field `\(name)` must be an array of \(elements), found \(other.typeDescription)")
        }
    }

    /// An ISO 8601 date and time with a zone, as ``JobFile/CommonFields/iso8601Date(_:)`` reads it.
    func date(_ name: String) throws(SpoolError) -> Date? {
        switch value(name) {
        case nil:
            return nil
        case .string(let text):
            guard let date = JobFile.CommonFields.iso8601Date(text) else {
                throw invalid("field `\(name)` must be an ISO 8601 time such as \"2026-11-24T06:00:00Z\"; found \(text.debugDescription)")
            }
            return date
        case let other?:
            throw invalid("field `\(name)` must be an ISO 8601 time (a string), found \(other.typeDescription)")
        }
    }

    /// An integer within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(SpoolError) -> Int? {
        switch value(name) {
        case nil:
            return nil
        case .integer(let number) where range.contains(number):
            return number
        case .integer(let number):
            throw invalid("field `\(name)` must be from \(range.lowerBound) to \(range.upperBound), found \(number)")
        case let other?:
            throw invalid("field `\(name)` must be an integer, found \(other.typeDescription)")
        }
    }

    /// A duration above 0 and at most `maximum` seconds: a number of seconds, or a text with a
    /// unit as `lineup enqueue` takes one (`90s`, `10m`, `1h`, `7d`), since a person writing a
    /// job file by hand thinks of an hour, not of 3600.
    func duration(_ name: String, atMost maximum: Double) throws(SpoolError) -> Double? {
        guard let value = value(name) else { return nil }
        let seconds: Double?
        switch value {
        case .string(let text): seconds = Self.seconds(text)
        default: seconds = value.doubleValue
        }
        guard let seconds else {
            throw invalid("field `\(name)` must be a number of seconds or a duration such as \"90s\", \"10m\", \"1h\" or \"7d\", found \(value.typeDescription)")
        }
        guard seconds.isFinite, seconds > 0, seconds <= maximum else {
            throw invalid("field `\(name)` must be above 0 s and at most \(Int(maximum)) s, found \(seconds)")
        }
        return seconds
    }

    /// `90`, `90s`, `10m`, `1h` or `7d` in seconds; nil for anything else.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let last = text.last else { return nil }
        let multiplier = units[last]
        guard let number = Double(multiplier == nil ? Substring(text) : text.dropLast()) else { return nil }
        return number * (multiplier ?? 1)
    }
}
