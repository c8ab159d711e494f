import Foundation
import LineupJobs
import Logging
import Testing

/// The dashboard's memory of each job's log lines: only lines with a `job`, bounded per job and
/// in jobs.
@Suite struct JobLogTests {
    @Test func keepsTheNewestLinesOfTheJobsLoggedLast() {
        let jobLog = JobLog(linesPerJob: 3, jobLimit: 2)
        var logger = Logger(label: "test") { jobLog.handler(label: $0) }
        logger.logLevel = .debug
        logger.info("no job: not kept")
        for number in 1...5 {
            logger.info("line \(number)", metadata: ["job": "a", "attempt": "\(number)"])
        }
        #expect(jobLog.lines(ofJob: "a").map(\.message) == ["line 3", "line 4", "line 5"])
        #expect(jobLog.lines(ofJob: "a").last?.metadata == ["attempt": "5"])
        logger.warning("b's line", metadata: ["job": "b"])
        logger.info("a again", metadata: ["job": "a"])
        logger.error("c's line", metadata: ["job": "c"])
        #expect(jobLog.lines(ofJob: "b").isEmpty, "b logged least recently: forgotten")
        #expect(jobLog.lines(ofJob: "a").last?.message == "a again")
        #expect(jobLog.lines(ofJob: "c").map(\.level) == ["error"])
    }
}
