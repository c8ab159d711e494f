/// A strict RFC 4180 reader, written for the differential fuzzer apart from the writer's code:
/// records end in CRLF, fields are separated by commas, a quoted field may hold commas, CR, LF
/// and doubled quotes, and an unquoted field may hold none of those. It keeps whether a field
/// was quoted, because the writer tells an empty string (`""`) from NULL (nothing) that way.
struct RFC4180Reader {
    struct Field: Equatable {
        var bytes: [UInt8]
        var isQuoted: Bool
    }

    struct SyntaxError: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "byte \(offset): \(reason)" }
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
    private static let carriageReturn: UInt8 = 0x0D, lineFeed: UInt8 = 0x0A

    static func records(in bytes: [UInt8]) throws(SyntaxError) -> [[Field]] {
        var records: [[Field]] = []
        var record: [Field] = []
        var index = 0
        while index < bytes.count {
            var field = Field(bytes: [], isQuoted: false)
            if bytes[index] == quote {
                field.isQuoted = true
                index += 1
                while true {
                    guard index < bytes.count else { throw SyntaxError(offset: index, reason: "a quoted field never closes") }
                    if bytes[index] == quote {
                        if index + 1 < bytes.count, bytes[index + 1] == quote {
                            field.bytes.append(quote)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.bytes.append(bytes[index])
                    index += 1
                }
            } else {
                while index < bytes.count, bytes[index] != comma, bytes[index] != carriageReturn {
                    guard bytes[index] != quote, bytes[index] != lineFeed else {
                        throw SyntaxError(offset: index, reason: "a quote or a line feed in an unquoted field")
                    }
                    field.bytes.append(bytes[index])
                    index += 1
                }
            }
            record.append(field)
            guard index < bytes.count else { throw SyntaxError(offset: index, reason: "the last record has no CRLF") }
            if bytes[index] == comma {
                index += 1
                continue
            }
            guard bytes[index] == carriageReturn, index + 1 < bytes.count, bytes[index + 1] == lineFeed else {
                throw SyntaxError(offset: index, reason: "a field is followed by neither a comma nor CRLF")
            }
            index += 2
            records.append(record)
            record = []
        }
        return records
    }
}
