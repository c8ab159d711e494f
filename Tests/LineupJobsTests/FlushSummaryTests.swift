import Foundation
import LineupJobs
import Testing

/// The one record of a flush, as `status.json`, the event stream and `POST /api/flush` write it.
@Suite struct FlushSummaryTests {
    let at = Date(timeIntervalSince1970: 1_700_000_000)
    let encoder = { let encoder = JSONEncoder(); encoder.dateEncodingStrategy = .iso8601; return encoder }()
    let decoder = { let decoder = JSONDecoder(); decoder.dateDecodingStrategy = .iso8601; return decoder }()

    @Test("a flush's JSON keeps acknowledged a count, as status.json always had it, and names the jobs beside it")
    func encodingKeepsTheStatusFileKeys() throws {
        let summary = FlushSummary(
            reason: .interval, at: at, rowsFromMain: 3, rowsWritten: 5, acknowledged: ["a", "b"], duration: .milliseconds(12))
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(summary)) as? [String: Any])
        #expect(object["acknowledged"] as? Int == 2)
        #expect(object["acknowledgedJobs"] as? [String] == ["a", "b"])
        #expect(object["succeeded"] as? Bool == true)
        #expect(object["rowsWritten"] as? Int == 5)
        #expect(object["milliseconds"] as? Int == 12)
        #expect(object["reason"] as? String == "interval")
        #expect(object["error"] == nil)
        #expect(try decoder.decode(FlushSummary.self, from: encoder.encode(summary)) == summary)
    }

    @Test("a failed flush says why, and that it wrote and acknowledged nothing")
    func failedFlush() throws {
        let summary = FlushSummary(reason: .signal, at: at, failedWith: "disk full", duration: .milliseconds(3))
        #expect(!summary.succeeded && summary.didSomething)
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(summary)) as? [String: Any])
        #expect(object["succeeded"] as? Bool == false)
        #expect(object["error"] as? String == "disk full")
        #expect(object["acknowledged"] as? Int == 0)
    }

    @Test("the status file of an older daemon, without the names, still reads")
    func olderStatusFile() throws {
        let json = #"{"at":"2023-11-14T22:13:20Z","reason":"idle","succeeded":true,"rowsWritten":4,"acknowledged":1}"#
        let summary = try decoder.decode(FlushSummary.self, from: Data(json.utf8))
        #expect(summary.reason == .idle && summary.rowsWritten == 4 && summary.succeeded)
        #expect(summary.acknowledgedCount == 1)
        #expect(summary.acknowledged == [], "the names were never written")
    }

    @Test("the status file's copy keeps the count and leaves the names out")
    func withoutNames() throws {
        let summary = FlushSummary(reason: .jobLimit, at: at, rowsFromMain: 1, rowsWritten: 1, acknowledged: ["a", "b", "c"], duration: .zero)
        let kept = summary.withoutNames
        #expect(kept.acknowledgedCount == 3 && kept.acknowledged.isEmpty && kept.didSomething)
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(kept)) as? [String: Any])
        #expect(object["acknowledged"] as? Int == 3)
        #expect(object["acknowledgedJobs"] == nil)
        #expect(try decoder.decode(FlushSummary.self, from: encoder.encode(kept)) == kept)
    }

    @Test("an empty successful flush is not kept among the recent ones")
    func emptyFlushDidNothing() {
        #expect(!FlushSummary(reason: .interval, rowsFromMain: 0, rowsWritten: 0, acknowledged: [], duration: .zero).didSomething)
        #expect(FlushSummary(reason: .interval, rowsFromMain: 0, rowsWritten: 0, acknowledged: ["a"], duration: .zero).didSomething)
    }
}
