import Foundation
import LineupSpool
import Testing

/// The job file's `traceparent` and `tracestate`: the enqueuer's W3C trace context, checked so
/// that a bad one fails the job file at once, naming the field and never echoing the value.
@Suite("Trace context fields")
struct TraceContextFieldTests {
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a traceparent and its tracestate are read, kept out of the parameters, and written back")
    func readsAndWrites() throws {
        let job = try JobFile(data: jobData(#"{"kind": "statistics", "output": "s", "traceparent": "\#(Self.parent)", "tracestate": "vendor=a1,other=b2"}"#))
        #expect(job.traceparent == Self.parent)
        #expect(job.tracestate == "vendor=a1,other=b2")
        #expect(job.parameters == ["output": "s"])
        let again = try JobFile(data: job.encoded())
        #expect(again.traceparent == Self.parent)
        #expect(again.tracestate == "vendor=a1,other=b2")
        let parsed = try TraceParent(Self.parent)
        #expect(parsed.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parsed.parentID == "00f067aa0ba902b7")
        #expect(parsed.isSampled)
        #expect(try TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").isSampled == false)
    }

    @Test("a later version is read by its first four parts, as W3C asks")
    func laterVersion() throws {
        let parsed = try TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next")
        #expect(parsed.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    @Test(
        "a bad traceparent is refused with a message that names the field and what is wrong",
        arguments: [
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "it has 52 characters, not 55"),
            ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "its trace id is not lower-case hex"),
            ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "its trace id is all zeros"),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "its parent id is all zeros"),
            ("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "no `-` after its version"),
            ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version ff is invalid"),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", "its flags are not lower-case hex"),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "a version 00 value has 55 characters, this one 57"),
        ])
    func badTraceparent(value: String, problem: String) throws {
        let error = try #require(throws: SpoolError.self) {
            try JobFile(data: jobData(#"{"kind": "statistics", "traceparent": "\#(value)"}"#), path: "new/a.job.json")
        }
        #expect(error.code == .invalidField)
        #expect(error.path == "new/a.job.json")
        #expect(error.message.hasPrefix("field `traceparent` must be a W3C traceparent"))
        #expect(error.message.hasSuffix(": \(problem)"))
        #expect(!error.description.contains(value))
    }

    @Test("a traceparent that is not a string, and a tracestate without a traceparent, are refused")
    func wrongTypeAndLoneState() throws {
        let number = try #require(throws: SpoolError.self) { try JobFile(data: jobData(#"{"kind": "s", "traceparent": 7}"#)) }
        #expect(number.message == "field `traceparent` must be a string, found an integer")
        let lone = try #require(throws: SpoolError.self) { try JobFile(data: jobData(#"{"kind": "s", "tracestate": "a=b"}"#)) }
        #expect(lone.message == "field `tracestate` needs a `traceparent` field beside it")
        let long = String(repeating: "a", count: 513)
        let tooLong = try #require(throws: SpoolError.self) {
            try JobFile(data: jobData(#"{"kind": "s", "traceparent": "\#(Self.parent)", "tracestate": "\#(long)"}"#))
        }
        #expect(tooLong.message == "field `tracestate` must be printable ASCII of at most 512 characters")
    }

    @Test("JobOptions carry a trace context given as text, checked as a file's is")
    func options() throws {
        var options = JobOptions(id: "stats")
        options.traceparent = Self.parent
        options.tracestate = "vendor=a1"
        let job = try JobFile(kind: "statistics", parameters: ["output": "s"], options: options)
        #expect(job.traceparent == Self.parent)
        #expect(job.tracestate == "vendor=a1")
        #expect(job.id == "stats")
        options.traceparent = "00-nothex"
        let error = try #require(throws: SpoolError.self) { try JobFile(kind: "statistics", parameters: ["output": "s"], options: options) }
        #expect(error.message.hasPrefix("field `traceparent` must be a W3C traceparent"))
        options.traceparent = nil
        #expect(throws: SpoolError.self) { try JobFile(kind: "statistics", parameters: ["output": "s"], options: options) }
    }

    @Test("a job made with no trace context current has none: nothing is bootstrapped in this process")
    func noContextNoField() throws {
        let job = try JobFile(kind: "statistics", parameters: ["output": "s"])
        #expect(job.traceparent == nil)
        #expect(job.fields["traceparent"] == nil)
        #expect(!JobFile.commonFields.isDisjoint(with: ["traceparent", "tracestate"]))
        #expect(throws: SpoolError.self) { try JobFile(kind: "statistics", parameters: ["traceparent": "x"]) }
    }
}
