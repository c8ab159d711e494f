import Foundation
@testable import LineupSpool
import Testing

/// How a spool reads the names in its directories: `<name>[.t<not before>][.i<interruptions>]
/// [.a<attempts>][.c<claim>].job.json`, tags read from the end, anything that is not a tag part
/// of the name.
@Suite("Job file names")
struct JobFileNameTests {
    static let claim = "0123456789ab"

    @Test("a generated name keeps the dot of its time; the tags after it are read")
    func generatedNames() throws {
        let plain = try #require(JobFileName(fileName: "20261122T193512.123456Z-4242-0a1b2c-17.job.json"))
        #expect(plain == JobFileName(name: "20261122T193512.123456Z-4242-0a1b2c-17"))

        let tagged = try #require(JobFileName(fileName: "20261122T193512.123456Z-4242-0a1b2c-17.t1795376112.i2.a3.c\(Self.claim).job.json"))
        #expect(tagged.name == "20261122T193512.123456Z-4242-0a1b2c-17")
        #expect(tagged.notBefore == 1_795_376_112)
        #expect(tagged.interruptions == 2 && tagged.failedAttempts == 3 && tagged.claim == Self.claim && !tagged.isBulk)
    }

    @Test("what is not a tag, or not in its place, belongs to the name")
    func notTags() {
        func name(_ fileName: String) -> String? { JobFileName(fileName: fileName)?.name }
        #expect(name("n.c0123456789AB.job.json") == "n.c0123456789AB", "a claim is lowercase")
        #expect(name("n.c0123456789a.job.json") == "n.c0123456789a", "a claim has twelve digits")
        #expect(name("n.i0.job.json") == "n.i0", "a count starts at 1")
        #expect(name("n.i1234567.job.json") == "n.i1234567", "a count has at most six digits")
        #expect(name("n.t1234567890123.job.json") == "n.t1234567890123", "a time has at most twelve digits")
        #expect(name("n.a1.i1.job.json") == "n.a1", "the attempts come after the interruptions")
        #expect(name("n.i１.job.json") == "n.i１", "digits are ASCII digits")
        #expect(name("n..job.json") == "n.", "an empty tag")
        #expect(name("n.i.job.json") == "n.i")
        #expect(name("café ☕.i1.job.json") == "café ☕")
        #expect(JobFileName(fileName: "café ☕.i1.job.json")?.interruptions == 1)
    }

    @Test("dotfiles, reports, other suffixes and empty names are not job files")
    func notJobFiles() {
        for fileName in [
            ".n.job.json", ".job.json", "n.result.json", "n.error.json", "n.job.json.swp", "n.json", "",
            "n.a1.c\(Self.claim).jobs.jsonl",
        ] {
            #expect(JobFileName(fileName: fileName) == nil, "\(fileName)")
        }
    }

    @Test("a bulk file is read with its own suffix")
    func bulkFiles() throws {
        let bulk = try #require(JobFileName(fileName: "n.i1.c\(Self.claim).jobs.jsonl"))
        #expect(bulk == JobFileName(name: "n", interruptions: 1, claim: Self.claim, isBulk: true))
    }

    @Test("a generated name starts with its UTC time to the microsecond, fixed width, so that names sort by time")
    func generatedTimestamps() {
        #expect(JobNameGenerator.timestamp(microseconds: 1_795_376_112_123_456) == "20261122T193512.123456Z")
        #expect(JobNameGenerator.timestamp(microseconds: 0) == "19700101T000000.000000Z")
        #expect(JobNameGenerator.timestamp(microseconds: 951_782_400_000_001) == "20000229T000000.000001Z")

        let generator = JobNameGenerator()
        let now = Date(timeIntervalSince1970: 1_795_376_112.5)
        // The same instant three times: the clock is bumped, names still sort in generation order.
        let names = (0..<3).map { _ in generator.next(now: now) }
        #expect(names == names.sorted() && Set(names).count == 3, "\(names)")
        #expect(names[0].hasPrefix("20261122T193512.500000Z-") && names[1].hasPrefix("20261122T193512.500001Z-"), "\(names)")
    }

    @Test("every name the spool writes reads back as itself")
    func roundTrip() {
        let names = [
            JobFileName(name: "20261122T193512.123456Z-4242-0a1b2c-17"),
            JobFileName(name: "nightly", notBefore: 1_795_376_112, interruptions: 12, failedAttempts: 999_999, claim: Self.claim),
            JobFileName(name: "bulk.line7", claim: Self.claim),
            JobFileName(name: "b", interruptions: 3, claim: Self.claim, isBulk: true),
            JobFileName(name: "déjà vu", notBefore: 1),
        ]
        for name in names {
            #expect(JobFileName(fileName: name.fileName) == name, "\(name.fileName)")
        }
    }
}
