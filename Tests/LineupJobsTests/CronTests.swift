import Foundation
import LineupJobs
import LineupSpool
import Logging
import Testing

@Suite struct CronScheduleTests {
    static func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    @Test(arguments: [
        ("0 3 * * *", "2026-11-24T10:00:00Z", "2026-11-24T03:00:00Z"),
        ("0 3 * * *", "2026-11-24T02:59:59Z", "2026-11-23T03:00:00Z"),
        ("0 3 * * *", "2026-11-24T03:00:00Z", "2026-11-24T03:00:00Z"),
        ("*/15 * * * *", "2026-11-24T10:07:30Z", "2026-11-24T10:00:00Z"),
        ("5/15 * * * *", "2026-11-24T10:19:00Z", "2026-11-24T10:05:00Z"),
        ("0 9 * * 1-5", "2026-11-29T10:00:00Z", "2026-11-27T09:00:00Z"),  // Sunday: Friday's
        ("0 9 * * 7", "2026-11-30T10:00:00Z", "2026-11-29T09:00:00Z"),  // 7 is Sunday
        ("0 0 1 * 0", "2026-11-30T12:00:00Z", "2026-11-29T00:00:00Z"),  // the 1st or a Sunday
        ("30 1,13 * 2 *", "2026-11-24T00:00:00Z", "2026-02-28T13:30:00Z"),
        ("0 0 29 2 *", "2026-11-24T00:00:00Z", "2024-02-29T00:00:00Z"),
    ])
    func previousFireTime(expression: String, now: String, expected: String) throws {
        let schedule = try CronSchedule(expression)
        #expect(schedule.previousFireTime(atOrBefore: Self.date(now)) == Self.date(expected))
    }

    @Test(arguments: [
        ("0 3 * *", "has 5 fields"), ("60 * * * *", "the minute field must be from 0 to 59; found 60"),
        ("* 24 * * *", "the hour field must be from 0 to 23"), ("*/0 * * * *", "a step that is not a whole number above 0"),
        ("0 0 30 2 *", "never fires"), ("0 0 5-1 * *", "a range outside 1-31"), ("0 0 * * mon", "the day of the week field"),
    ])
    func badExpressionIsRefused(expression: String, message: String) {
        let error = #expect(throws: DaemonError.self) { try CronSchedule(expression) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.message.contains(expression) == true)
    }
}

/// One enqueue per entry and period, across restarts and a crash between the enqueue and the
/// record of it.
@Suite struct CronSchedulerTests {
    let root: URL
    let spool: SpoolDirectory

    init() throws {
        root = FileManager.default.temporaryDirectory.appending(path: "lineup-cron-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        spool = try SpoolDirectory(root: root.appending(path: "spool"), durability: .none)
    }

    func entry(_ schedule: String, name: String = "nightly") throws -> CronJob {
        try CronJob(name: name, schedule: CronSchedule(schedule), job: JobFile(kind: "statistics", parameters: ["output": "s.json"]))
    }

    func scheduler() -> CronScheduler {
        CronScheduler(spool: spool, logger: Logger(label: "cron-tests"))
    }

    @Test func firesOncePerPeriodAcrossRestarts() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let nightly = try entry("0 3 * * *")
        let atThree = CronScheduleTests.date("2026-11-24T03:00:20Z")
        #expect(scheduler().enqueueDue([nightly], now: atThree) == ["cron-nightly-202611240300"])
        #expect(scheduler().enqueueDue([nightly], now: atThree.addingTimeInterval(30)) == [])
        #expect(scheduler().enqueueDue([nightly], now: atThree.addingTimeInterval(3_600)) == [])
        let queued = try spool.entries(.queued)
        #expect(queued.map(\.name) == ["cron-nightly-202611240300"])
        let job = try JobFile(data: Data(contentsOf: queued[0].url))
        #expect(job.kind == "statistics" && job.parameters == ["output": "s.json"])
        // The next night.
        #expect(scheduler().enqueueDue([nightly], now: atThree.addingTimeInterval(86_400)) == ["cron-nightly-202611250300"])
    }

    @Test func aCrashBeforeThePeriodIsRecordedDoesNotEnqueueItTwice() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let nightly = try entry("0 3 * * *")
        let atThree = CronScheduleTests.date("2026-11-24T03:00:05Z")
        #expect(scheduler().enqueueDue([nightly], now: atThree).count == 1)
        // As if the process died after the enqueue, before it wrote cron.json.
        try FileManager.default.removeItem(at: spool.root.appending(path: "cron.json"))
        #expect(scheduler().enqueueDue([nightly], now: atThree.addingTimeInterval(10)) == [])
        // Claimed and running by now: still found.
        _ = try #require(try spool.claimNext())
        try FileManager.default.removeItem(at: spool.root.appending(path: "cron.json"))
        #expect(scheduler().enqueueDue([nightly], now: atThree.addingTimeInterval(20)) == [])
        #expect(try spool.counts().queued + spool.counts().running == 1)
    }

    @Test func aNewEntryWaitsForItsNextFireTimeAndDowntimeCatchesUpOnce() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let nightly = try entry("0 3 * * *")
        let noon = CronScheduleTests.date("2026-11-24T12:00:00Z")
        #expect(scheduler().enqueueDue([nightly], now: noon) == [], "added at noon, it waits for the night")
        // Down for two nights: the latest missed night runs at the start, once.
        let later = CronScheduleTests.date("2026-11-26T09:00:00Z")
        #expect(scheduler().enqueueDue([nightly], now: later) == ["cron-nightly-202611260300"])
        #expect(scheduler().enqueueDue([nightly], now: later) == [])
        #expect(try spool.counts().queued == 1)
    }

    @Test func entriesAreIndependent() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let every15 = try entry("*/15 * * * *", name: "quarter")
        let hourly = try entry("0 * * * *", name: "hourly")
        let onTheHour = CronScheduleTests.date("2026-11-24T10:00:01Z")
        #expect(Set(scheduler().enqueueDue([every15, hourly], now: onTheHour)) == ["cron-quarter-202611241000", "cron-hourly-202611241000"])
        #expect(scheduler().enqueueDue([every15, hourly], now: onTheHour.addingTimeInterval(15 * 60)) == ["cron-quarter-202611241015"])
    }
}
