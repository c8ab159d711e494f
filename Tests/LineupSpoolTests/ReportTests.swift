import Foundation
import LineupSpool
import Testing

@Suite("Result and failure reports")
struct ReportTests {
    /// 2026-11-22T19:35:12.123Z, exactly representable in milliseconds.
    let started = Date(timeIntervalSince1970: 1_795_376_112.123)
    let finished = Date(timeIntervalSince1970: 1_795_376_113.5)

    @Test("a result report is pretty JSON with ISO-8601 dates and reads back equal")
    func resultReport() throws {
        let report = JobResultReport(
            name: "20261122T193512.123456Z-1-000001-1",
            id: "buoy-42002",
            kind: "import-buoy",
            attempts: 2,
            interruptions: 1,
            startedAt: started,
            finishedAt: finished,
            details: ["observations": 1440, "output": "obs/42002.rss", "skipped": ["negative wave height": 2]]
        )
        let text = String(decoding: try report.encoded(), as: UTF8.self)
        #expect(text == """
            {
              "attempts" : 2,
              "details" : {
                "observations" : 1440,
                "output" : "obs/42002.rss",
                "skipped" : {
                  "negative wave height" : 2
                }
              },
              "finishedAt" : "2026-11-22T19:35:13.500Z",
              "id" : "buoy-42002",
              "interruptions" : 1,
              "kind" : "import-buoy",
              "name" : "20261122T193512.123456Z-1-000001-1",
              "startedAt" : "2026-11-22T19:35:12.123Z"
            }

            """)
        #expect(try JobResultReport(data: Data(text.utf8)) == report)
    }

    @Test("a failure report without kind or start omits them and reads back equal")
    func failureReport() throws {
        let report = JobFailureReport(
            name: "bad",
            id: nil,
            kind: nil,
            reason: "/spool/active/bad.job.json: job file is not valid JSON: the file is empty",
            attempts: 1,
            retryable: false,
            startedAt: nil,
            finishedAt: finished
        )
        let data = try report.encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["name", "reason", "attempts", "interruptions", "retryable", "finishedAt"])
        #expect(try JobFailureReport(data: data) == report)
    }

    @Test("a report with a bad date names the field")
    func badDate() throws {
        let text = #"{"name":"n","kind":"k","attempts":1,"startedAt":"yesterday","finishedAt":"2026-11-22T19:35:13Z"}"#
        let error = try #require(throws: SpoolError.self) {
            try JobResultReport(data: Data(text.utf8), path: "/spool/done/n.result.json")
        }
        #expect(error.code == .invalidField)
        #expect(
            error.description
                == #"/spool/done/n.result.json: field `startedAt`: expected an ISO-8601 date, found "yesterday""#
        )
    }
}
