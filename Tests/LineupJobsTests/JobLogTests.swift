import Foundation
import LineupJobs
import LineupTestSupport
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

    /// Many jobs logging in turn: the log keeps what a plain model keeps, the newest lines of
    /// the jobs logged last, however often jobs are forgotten and their entries reordered.
    @Test func keepsWhatAModelKeepsOverManyJobs() {
        let jobLog = JobLog(linesPerJob: 2, jobLimit: 4)
        var logger = Logger(label: "test") { jobLog.handler(label: $0) }
        logger.logLevel = .info
        var model: [(job: String, lines: [String])] = []  // least recently logged first
        var random = SeededRandom(seed: 0x10b_1e9)
        for number in 0..<2_000 {
            let job = "job-\(Int.random(in: 0..<12, using: &random))"
            logger.info("line \(number)", metadata: ["job": "\(job)"])
            var lines = model.first(where: { $0.job == job })?.lines ?? []
            model.removeAll { $0.job == job }
            lines = Array((lines + ["line \(number)"]).suffix(2))
            model.append((job, lines))
            if model.count > 4 { model.removeFirst() }
        }
        for index in 0..<12 {
            let job = "job-\(index)"
            #expect(jobLog.lines(ofJob: job).map(\.message) == (model.first(where: { $0.job == job })?.lines ?? []), "\(job)")
        }
    }
}
