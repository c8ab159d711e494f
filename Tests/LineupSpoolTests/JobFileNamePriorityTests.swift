import Foundation
@testable import LineupSpool
import Testing

/// The `.p<priority>` tag: first after the name, one digit, absent for the default priority.
@Suite("Job file names: priority")
struct JobFileNamePriorityTests {
    static let claim = "0123456789ab"

    @Test("a priority tag is read before the others and written back the same")
    func roundTrip() throws {
        let text = "20261122T193512.123456Z-42-0a1b2c-7.p3.t1790000000.i2.a1.c\(Self.claim).job.json"
        let name = try #require(JobFileName(fileName: text))
        #expect(name.name == "20261122T193512.123456Z-42-0a1b2c-7")
        #expect(name.priority == 3 && name.notBefore == 1_790_000_000 && name.interruptions == 2 && name.failedAttempts == 1)
        #expect(name.claim == Self.claim && name.fileName == text)
        #expect(name.withClaim(nil).withFailedAttempts(0).withInterruptions(0).fileName == "20261122T193512.123456Z-42-0a1b2c-7.p3.t1790000000.job.json")
    }

    @Test("what is not one digit after .p is part of the name, and the default priority writes no tag")
    func notATag() throws {
        #expect(JobFileName(fileName: "report.p12.job.json")?.name == "report.p12")
        #expect(JobFileName(fileName: "report.p12.job.json")?.priority == nil)
        #expect(JobFileName(fileName: "report.px.job.json")?.name == "report.px")
        #expect(JobFileName(fileName: "report.p.job.json")?.name == "report.p")
        #expect(JobFileName(name: "report", priority: JobFileName.tag(priority: JobFile.defaultPriority)).fileName == "report.job.json")
        #expect(JobFileName(fileName: "report.p5.job.json")?.fileName == "report.p5.job.json", "a name read is written back as it was")
        #expect(JobFileName(name: "report", priority: 0).fileName == "report.p0.job.json")
        #expect(JobFileName(fileName: "report.p5.job.json")?.effectivePriority == 5)
    }
}
