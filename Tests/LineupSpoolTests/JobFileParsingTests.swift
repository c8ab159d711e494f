import Foundation
import LineupSpool
import Testing

/// A job file is read by a fast parser of plain JSON, and by `JSONDecoder` for everything else.
/// Either way the fields must be exactly what `JSONDecoder` reads (the same cases, not only
/// equal values: `integerValue` tells `3` from `3.5`), and what it refuses stays refused.
@Suite("Job file parsing")
struct JobFileParsingTests {
    /// Each text is the value of a field `v` beside the kind.
    static let plainValues = [
        "1", "-0", "0", "1.0", "-0.0", "1e2", "1E+2", "-1e2", "2.5e1", "0.1e1", "1.0e0", "1e-400", "1.5e-3",
        "123.456e1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890",
        "100000000000000000000000", "9.2233720368547758e18", "0.99999999999999999999", "3.14159", "9007199254740993.0",
        "9007199254740991.5e0", "111111111111555555.3111111116", "1e18", "-4.5e15",
        #""""#, #""plain""#, #""\u0000""#, #""\ud83d\ude00""#, #""\"\\\/\b\f\n\r\t""#, #""é — 😀""#, #""\u00e9\u20AC""#,
        "true", "false", "null", "[]", "{}", #"[1, "two", [3.5, null], {"k": false}]"#,
        #"{"nested": {"deeper": [{"deepest": -7}]}}"#,
    ]

    /// Texts that `JSONDecoder` allows though they are not plain JSON: the fast parser leaves them to it.
    static let lenientTexts = [
        #"{"kind": "k", "v": 1,}"#,
        #"{"kind": "k", "v": [1, 2,]}"#,
        #"{"kind": "k", "v": 1, "v": 2}"#,
        "\u{FEFF}" + #"{"kind": "k", "v": 1}"#,
    ]

    /// Texts `JSONDecoder` refuses; so must the job file.
    static let refusedTexts = [
        #"{"kind": "k", "v": 1e400}"#, #"{"kind": "k", "v": 01}"#, #"{"kind": "k", "v": 1.}"#, #"{"kind": "k", "v": .5}"#,
        #"{"kind": "k", "v": -}"#, #"{"kind": "k", "v": NaN}"#, #"{"kind": "k", "v": "\ud800"}"#,
        #"{"kind": "k", "v": "\udc00\ud800"}"#, "{\"kind\": \"k\", \"v\": \"a\tb\"}", #"{"kind": "k", "v": "\x"}"#,
        #"{"kind": "k", "v": 1} trailing"#, #"{"kind": "k", "v": tru}"#, #"{"kind": "k" "v": 1}"#,
        #"{"kind": "k", "v": 1"#, #"{"kind": "k", "v": "open}"#, "[1, 2]", "",
        #"{"kind": "k", "v": "# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
    ]

    @Test("plain JSON reads exactly as JSONDecoder reads it", arguments: plainValues)
    func plainJSON(value: String) throws {
        let text = #"{"kind": "k", "v": "# + value + "}"
        let job = try JobFile(data: Data(text.utf8))
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        #expect(Self.sameCases(.object(job.fields), .object(decoded)), "\(job.fields) against \(decoded)")
    }

    @Test("text JSONDecoder allows beyond plain JSON reads as before", arguments: lenientTexts)
    func lenientText(text: String) throws {
        let job = try JobFile(data: Data(text.utf8))
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        #expect(Self.sameCases(.object(job.fields), .object(decoded)), "\(job.fields) against \(decoded)")
    }

    @Test("bytes that are not UTF-8 are refused, as JSONDecoder refuses them", arguments: [[0xFF], [0xC3], [0xED, 0xA0, 0x80]])
    func invalidUTF8(bytes: [UInt8]) {
        let data = Data(#"{"kind": "k", "v": ""#.utf8) + Data(bytes) + Data(#""}"#.utf8)
        #expect(throws: (any Error).self) { try JSONDecoder().decode([String: JSONValue].self, from: data) }
        let error = #expect(throws: SpoolError.self) { try JobFile(data: data, path: "new/x.job.json") }
        #expect(error?.code == .malformedJobFile)
    }

    @Test("text JSONDecoder refuses is refused as malformed, naming the file", arguments: refusedTexts)
    func refused(text: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) }
        let error = #expect(throws: SpoolError.self) { try JobFile(data: Data(text.utf8), path: "new/x.job.json") }
        #expect(error?.code == .malformedJobFile)
        #expect(error?.path == "new/x.job.json")
    }

    /// Equal with the same case at every level: `.integer(1)` and `.number(1)` differ here.
    static func sameCases(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.array(a), .array(b)): a.count == b.count && zip(a, b).allSatisfy(sameCases)
        case let (.object(a), .object(b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { sameCases(value, $0) } ?? false }
        case (.integer, _), (.number, _), (.array, _), (.object, _): false
        default: lhs == rhs
        }
    }
}
