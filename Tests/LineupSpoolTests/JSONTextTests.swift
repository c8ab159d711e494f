import Foundation
import LineupSpool
import Testing

/// Job files and reports are written by the spool's own JSON writer, not by `JSONEncoder`
/// (which cost a tenth of the daemon's CPU per job); these tests hold the writer to what
/// `JSONEncoder` writes with the options the spool used, byte for byte.
@Suite("JSON text of job files and reports")
struct JSONTextTests {
    /// Values where a hand-written writer could go wrong: escapes, control characters, text
    /// beyond ASCII (composed and decomposed; `String` sees `é` and `e\u{301}` as one key, so
    /// only one of them can be a key), key order, number forms, empty and nested containers.
    static let awkward: [String: JSONValue] = [
        "quote\"and\\backslash": "a \"quoted\" \\ path/with/slashes",
        "controls": .string("line\nfeed\rreturn\ttab\u{8}back\u{C}feed\u{1}one\u{1F}unit\u{7F}delete"),
        "unicode": "é e\u{301} 😀 \u{2028} ü",
        "B": 1, "Z": 2, "_": 3, "a": 4, "a-b": 5, "a10": 6, "a2": 7, "e\u{301}": 8, "ü": 9, "😀": 10, "": 11,
        "integers": [0, -1, .integer(Int.max), .integer(Int.min)],
        "numbers": [
            .number(3.0), .number(-0.0), .number(0.1), .number(1e20), .number(1e-7), .number(123_456_789.125),
            .number(.leastNonzeroMagnitude), .number(Double.greatestFiniteMagnitude), .number(-2.5e-300),
        ],
        "flags": [true, false, nil],
        "empty array": [],
        "empty object": [:],
        "nested": ["list": [[], [:], ["deep": [1, "two", [3.5]]]], "object": ["x": nil]],
    ]

    @Test("a job file is the compact JSON JSONEncoder writes with sorted keys")
    func jobFileText() throws {
        let job = try JobFile(kind: "awkward", id: "job-1", after: ["a", "b"], maxAttempts: 2, parameters: Self.awkward)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try job.encoded() == encoder.encode(job.fields))
    }

    @Test("a report is the pretty JSON JSONEncoder writes with sorted keys, and a newline")
    func reportText() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let result = JobResultReport(
            name: "n", id: "i", kind: "k", attempts: 1, startedAt: Date(timeIntervalSince1970: 1_795_376_112.123),
            finishedAt: Date(timeIntervalSince1970: 1_795_376_113), details: Self.awkward)
        #expect(try result.encoded() == encoder.encode(result) + Data("\n".utf8))
        let withoutID = JobResultReport(
            name: "n", id: nil, kind: "k", attempts: 2, interruptions: 1, startedAt: Date(timeIntervalSince1970: 0),
            finishedAt: Date(timeIntervalSince1970: 0.5))
        #expect(try withoutID.encoded() == encoder.encode(withoutID) + Data("\n".utf8))
        #expect(try JobResultReport(data: withoutID.encoded()) == withoutID)
        let failure = JobFailureReport(
            name: "n", id: nil, kind: "k", reason: "it \"failed\"\n", attempts: 3, retryable: true,
            startedAt: nil, finishedAt: Date(timeIntervalSince1970: 0))
        #expect(try failure.encoded() == encoder.encode(failure) + Data("\n".utf8))
        #expect(try JobFailureReport(data: failure.encoded()) == failure)
    }

    @Test("a number JSON cannot hold is refused, naming what could not be written")
    func nonFiniteNumbers() throws {
        let job = try JobFile(kind: "k", parameters: ["ratio": .number(.nan)])
        let jobError = try #require(throws: SpoolError.self) { try job.encoded() }
        #expect(jobError.code == .invalidField)
        #expect(jobError.description == "cannot encode job file: cannot write nan as JSON (only finite numbers)")

        let report = JobResultReport(
            name: "n", id: nil, kind: "k", attempts: 1, startedAt: Date(timeIntervalSince1970: 0),
            finishedAt: Date(timeIntervalSince1970: 0), details: ["rate": .number(.infinity)])
        let reportError = try #require(throws: SpoolError.self) { try report.encoded() }
        #expect(reportError.code == .invalidField)
        #expect(reportError.description == "cannot encode report: cannot write inf as JSON (only finite numbers)")
    }
}
