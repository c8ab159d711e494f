import Foundation

extension JobFile {
    /// The common fields, checked one by one so that an error names the exact field and what
    /// was found instead. A `null` optional field counts as absent.
    struct CommonFields {
        var kind: String
        var id: String?
        var after: [String] = []
        var maxAttempts: Int?
        var baseDelay: Double?
        var timeout: Double?
        var uniqueKey: String?
        var notBefore: Date?

        init(_ fields: [String: JSONValue], path: String?) throws(SpoolError) {
            func invalid(_ message: String) -> SpoolError {
                SpoolError(code: .invalidField, path: path, message: message)
            }
            switch fields["kind"] {
            case nil, .null:
                throw SpoolError(
                    code: .missingField,
                    path: path,
                    message: "job file has no `kind` field (the job kind, e.g. \"import-buoy\")"
                )
            case .string(let kind) where kind.isEmpty:
                throw invalid("field `kind` must not be empty")
            case .string(let kind):
                self.kind = kind
            case let other?:
                throw invalid("field `kind` must be a string, found \(other.typeDescription)")
            }
            switch fields["id"] {
            case nil, .null:
                id = nil
            case .string(let id) where id.isEmpty:
                throw invalid("field `id` must not be empty")
            case .string(let id):
                self.id = id
            case let other?:
                throw invalid("field `id` must be a string, found \(other.typeDescription)")
            }
            switch fields["after"] {
            case nil, .null:
                break
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    guard case .string(let id) = element else {
                        throw invalid("field `after[\(index)]` must be a string (a job id), found \(element.typeDescription)")
                    }
                    guard !id.isEmpty else {
                        throw invalid("field `after[\(index)]` must not be empty")
                    }
                    after.append(id)
                }
            case let other?:
                throw invalid("field `after` must be an array of job ids, found \(other.typeDescription)")
            }
            switch fields["maxAttempts"] {
            case nil, .null:
                maxAttempts = nil
            case .integer(let count) where count >= 1:
                maxAttempts = count
            case .integer:
                throw invalid("field `maxAttempts` must be at least 1")
            case let other?:
                throw invalid("field `maxAttempts` must be an integer, found \(other.typeDescription)")
            }
            switch fields["uniqueKey"] {
            case nil, .null:
                uniqueKey = nil
            case .string(let key) where key.isEmpty:
                throw invalid("field `uniqueKey` must not be empty")
            case .string(let key):
                uniqueKey = key
            case let other?:
                throw invalid("field `uniqueKey` must be a string, found \(other.typeDescription)")
            }
            switch fields["notBefore"] {
            case nil, .null:
                notBefore = nil
            case .string(let text):
                guard let date = Self.iso8601Date(text) else {
                    throw invalid("field `notBefore` must be an ISO 8601 time such as \"2026-11-24T06:00:00Z\"; found \(text.debugDescription)")
                }
                notBefore = date
            case let other?:
                throw invalid("field `notBefore` must be an ISO 8601 time (a string), found \(other.typeDescription)")
            }
            switch fields["baseDelay"] {
            case nil, .null:
                baseDelay = nil
            case let value? where value.doubleValue != nil:
                let seconds = value.doubleValue ?? 0
                guard seconds.isFinite, seconds >= 0 else {
                    throw invalid("field `baseDelay` must be a finite number of seconds, 0 or more")
                }
                baseDelay = seconds
            case let other?:
                throw invalid("field `baseDelay` must be a number of seconds, found \(other.typeDescription)")
            }
            switch fields["timeout"] {
            case nil, .null:
                timeout = nil
            case let value? where value.doubleValue != nil:
                let seconds = value.doubleValue ?? 0
                // A year at most: beyond it the value is a mistake, and it must fit a Duration.
                guard seconds.isFinite, seconds > 0, seconds <= 366 * 86_400 else {
                    throw invalid("field `timeout` must be a number of seconds above 0 and at most a year, found \(seconds)")
                }
                timeout = seconds
            case let other?:
                throw invalid("field `timeout` must be a number of seconds, found \(other.typeDescription)")
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

    /// Parses the bytes as one JSON object; `isPlainText` says that `JSONObjectParser` read
    /// them, so the fields are what `JSONDecoder` reads from the text (``FieldDecoder`` may
    /// decode parameters from them).
    static func decodeObject(_ data: Data, path: String?) throws(SpoolError) -> (fields: [String: JSONValue], isPlainText: Bool) {
        if let fields = JSONObjectParser.parse(data) {
            return (fields, true)
        }
        // Not plain JSON text, so JSONDecoder decides: it refuses it with the error below, or
        // reads what its leniency allows (JSONObjectParser's notes).
        let decoder = JSONDecoder()
        // Straight into the fields, the case of every valid job file: decoding a `JSONValue`
        // first would try (and fail) the four scalar types before it got to the object.
        if let fields = try? decoder.decode([String: JSONValue].self, from: data) {
            return (fields, false)
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
