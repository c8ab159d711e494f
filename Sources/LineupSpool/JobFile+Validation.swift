import Foundation

extension JobFile {
    /// The common fields, checked one by one so that an error names the exact field and what
    /// was found instead. A `null` optional field counts as absent.
    struct CommonFields {
        var kind: String
        var id: String?
        var after: [String] = []
        var afterSettled = false
        var maxAttempts: Int?
        var baseDelay: Double?
        var timeout: Double?
        var uniqueKey: String?
        var notBefore: Date?
        var priority: Int?
        var queue: String?
        var uniqueFor: Double?

        init(_ fields: [String: JSONValue], path: String?) throws(SpoolError) {
            let reader = JobFileFieldReader(fields: fields, path: path)
            guard let kind = try reader.string("kind") else {
                throw SpoolError(
                    code: .missingField, path: path, message: "job file has no `kind` field (the job kind, e.g. \"import-buoy\")")
            }
            self.kind = kind
            id = try reader.string("id")
            after = try reader.strings("after", each: "a job id", together: "job ids")
            afterSettled = try reader.bool("afterSettled") ?? false
            maxAttempts = try reader.integer("maxAttempts", atLeast: 1)
            uniqueKey = try reader.string("uniqueKey")
            notBefore = try reader.date("notBefore")
            baseDelay = try reader.seconds(
                "baseDelay", isValid: { $0.isFinite && $0 >= 0 }, expected: { _ in "a finite number of seconds, 0 or more" })
            // A year at most: beyond it the value is a mistake, and it must fit a Duration.
            timeout = try reader.seconds(
                "timeout", isValid: { $0.isFinite && $0 > 0 && $0 <= 366 * 86_400 },
                expected: { "a number of seconds above 0 and at most a year, found \($0)" })
            priority = try reader.integer("priority", in: JobFile.priorities)
            queue = try reader.string("queue")
            uniqueFor = try reader.duration("uniqueFor", atMost: 366 * 86_400)
            if uniqueFor != nil, uniqueKey == nil {
                throw reader.invalid("field `uniqueFor` needs a `uniqueKey`: it says how long after a job is done its key stays taken")
            }
        }

        /// `2026-11-24T06:00:00.250Z`: UTC, to the millisecond.
        static func iso8601Text(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        }

        /// An ISO 8601 date and time with a zone (`Z` or `+02:00`), with or without fractions of
        /// a second: what `ISO8601Format()` and most producers write.
        static func iso8601Date(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }
    }

    /// Parses the bytes as one JSON object: plain JSON text by `JSONObjectParser`, the rest by
    /// `JSONDecoder`, so that the fields are what `JSONDecoder` reads either way.
    static func decodeObject(_ data: Data, path: String?) throws(SpoolError) -> [String: JSONValue] {
        if let fields = JSONObjectParser.parse(data) {
            return fields
        }
        // Not plain JSON text, so JSONDecoder decides: it refuses it with the error below, or
        // reads what its leniency allows (JSONObjectParser's notes).
        let decoder = JSONDecoder()
        // Straight into the fields, the case of every valid job file: decoding a `JSONValue`
        // first would try (and fail) the four scalar types before it got to the object.
        if let fields = try? decoder.decode([String: JSONValue].self, from: data) {
            return fields
        }
        let value: JSONValue
        do {
            value = try decoder.decode(JSONValue.self, from: data)
        } catch {
            throw SpoolError(
                code: .malformedJobFile,
                path: path,
                message: "job file is not valid JSON: \(syntaxErrorDescription(data))"
            )
        }
        throw SpoolError(
            code: .malformedJobFile,
            path: path,
            message: "job file must be a JSON object, found \(value.typeDescription)"
        )
    }

    /// `JSONDecoder` on Linux says only "not valid JSON"; `JSONSerialization` says where
    /// ("around character 8"), which is turned into a line and column here. Only runs on
    /// the error path.
    static func syntaxErrorDescription(_ data: Data) -> String {
        if data.isEmpty {
            return "the file is empty"
        }
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "the data was not valid JSON"
        } catch {
            let nsError = error as NSError
            var text = (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            if text.hasSuffix(".") { text.removeLast() }
            if let range = text.range(of: "character "),
                let offset = Int(text[range.upperBound...].prefix(while: { $0.isNumber })),
                offset <= data.count
            {
                let before = data.prefix(offset)
                let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
                let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex
                let column = offset - (lineStart - data.startIndex) + 1
                text += " (line \(line), column \(column))"
            }
            return text
        }
    }

    /// Turns a `DecodingError` from a kind's parameter type into a sentence that names the
    /// field.
    static func spoolError(describing error: DecodingError, path: String?) -> SpoolError {
        func fieldName(_ codingPath: [any CodingKey]) -> String {
            var name = ""
            for key in codingPath {
                if let index = key.intValue {
                    name += "[\(index)]"
                } else {
                    name += name.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return name
        }
        switch error {
        case .keyNotFound(let key, let context):
            return SpoolError(
                code: .missingField,
                path: path,
                message: "job file has no `\(fieldName(context.codingPath + [key]))` field"
            )
        case .valueNotFound(let type, let context):
            return SpoolError(
                code: .missingField,
                path: path,
                message: "field `\(fieldName(context.codingPath))` is null, expected \(type)"
            )
        case .typeMismatch(let type, let context):
            return SpoolError(
                code: .invalidField,
                path: path,
                message: "field `\(fieldName(context.codingPath))` has the wrong type, expected \(type)"
            )
        case .dataCorrupted(let context):
            let field = fieldName(context.codingPath)
            return SpoolError(
                code: context.codingPath.isEmpty ? .malformedJobFile : .invalidField,
                path: path,
                message: field.isEmpty ? context.debugDescription : "field `\(field)`: \(context.debugDescription)"
            )
        @unknown default:
            return SpoolError(code: .invalidField, path: path, message: "\(error)")
        }
    }
}
