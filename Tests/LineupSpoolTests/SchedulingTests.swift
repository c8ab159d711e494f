import Foundation
import LineupSpool
import Testing

@Suite("Scheduled jobs")
struct SchedulingTests {
    @Test("a job enqueued with notBefore is not claimed until then, and carries the time in its name")
    func notClaimedEarly() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            let due = Date().addingTimeInterval(1.5)
            let entry = try spool.enqueue(JobFile(kind: "statistics", id: "later", notBefore: due))
            #expect(entry.notBefore == Date(timeIntervalSince1970: due.timeIntervalSince1970.rounded(.up)))
            #expect(entry.fileName.contains(".t\(Int64(due.timeIntervalSince1970.rounded(.up))).job.json"), "\(entry.fileName)")
            try spool.enqueue(JobFile(kind: "statistics", id: "now"))

            let first = try #require(try spool.claimNext())
            #expect(try first.decodeJobFile().id == "now", "the due job is claimed, the scheduled one skipped")
            #expect(try spool.claimNext() == nil)
            #expect(try spool.scheduledJobIDs() == ["later"])

            // The time in the name is rounded up to the second: up to 2.5 s from the enqueue.
            let dueInName = try #require(entry.notBefore)
            try await Task.sleep(for: .seconds(max(0, dueInName.timeIntervalSinceNow) + 0.1))
            let second = try #require(try spool.claimNext())
            #expect(try second.decodeJobFile().id == "later")
            #expect(second.notBefore != nil && second.fileName.contains(".t"))
            #expect(try spool.scheduledJobIDs().isEmpty)
        }
    }

    @Test("a claimed job postponed until its time goes back to new/ with the time in its name, uncounted")
    func postpone() async throws {
        try await withTemporaryDirectory { directory in
            let spool = try SpoolDirectory(root: directory)
            try spool.enqueue(contents: Data(#"{"kind": "statistics", "notBefore": "2100-01-01T00:00:00Z"}"#.utf8))
            let claimed = try #require(try spool.claimNext(), "written by hand: no time in the name, so claimed once")
            let file = try claimed.decodeJobFile()
            #expect(file.notBefore == Date(timeIntervalSince1970: 4_102_444_800))
            try spool.postpone(claimed, until: try #require(file.notBefore))
            let queued = try spool.entries(.queued)
            #expect(queued.count == 1 && queued[0].notBefore == file.notBefore && queued[0].claim == nil)
            #expect(queued[0].interruptions == 0 && queued[0].failedAttempts == 0)
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test(
        "notBefore is an ISO 8601 time with a zone",
        arguments: [
            ("2026-11-24T06:00:00Z", 1_795_500_000.0), ("2026-11-24T06:00:00.250Z", 1_795_500_000.25),
            ("2026-11-24T08:00:00+02:00", 1_795_500_000.0),
        ])
    func parsesTimes(text: String, seconds: Double) throws {
        let job = try JobFile(data: Data(#"{"kind": "k", "notBefore": "\#(text)"}"#.utf8))
        #expect(job.notBefore == Date(timeIntervalSince1970: seconds))
    }

    @Test("a notBefore that is not a time is refused, naming the field", arguments: [#""tomorrow""#, #""2026-11-24""#, "1795500000"])
    func refusesOtherValues(value: String) {
        let error = #expect(throws: SpoolError.self) { try JobFile(data: Data(#"{"kind": "k", "notBefore": \#(value)}"#.utf8)) }
        #expect(error?.code == .invalidField)
        #expect(error?.message.contains("field `notBefore`") == true, "\(String(describing: error))")
    }
}
