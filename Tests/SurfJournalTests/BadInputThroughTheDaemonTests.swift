import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal
import Testing

/// Bad buoy documents sent through the real daemon (in-process): each fails its job with a
/// clear reason naming the file, saves nothing, and the daemon goes on with the next job.
@Suite(.serialized) struct BadInputThroughTheDaemonTests {
    static let badDocuments: [(name: String, contents: String)] = [
        ("truncated.xml", #"<?xml version="1.0"?><om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0"><om:member>"#),
        (
            "external-entity.xml",
            #"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]><rss><channel><item><title>&secret;</title></item></channel></rss>"#
        ),
        (
            "billion-laughs.xml",
            """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">\
            <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">\
            <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">\
            <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]><rss><channel><item><title>&lol9;</title></item></channel></rss>
            """
        ),
        ("not-xml.xml", "station,time,height\n42002,2022-02-27,2.5\n"),
        ("empty.xml", ""),
    ]

    @Test func eachBadDocumentFailsItsJobAndTheDaemonGoesOn() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("surfjournal-daemon-\(UUID().uuidString)")
        let input = root.appendingPathComponent("input")
        let output = root.appendingPathComponent("output")
        for directory in [input, output] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        for (name, contents) in Self.badDocuments {
            try Data(contents.utf8).write(to: input.appendingPathComponent(name))
        }
        // Invalid UTF-8 inside an otherwise well-formed document.
        var invalid = Data(#"<?xml version="1.0" encoding="UTF-8"?><rss><channel><title>"#.utf8)
        invalid.append(contentsOf: [0xC3, 0x28, 0xFF])
        invalid.append(Data("</title></channel></rss>".utf8))
        try invalid.write(to: input.appendingPathComponent("invalid-utf8.xml"))
        try FileManager.default.copyItem(
            at: corpusDirectory.appendingPathComponent("ndbc/pyoos-ndbc-sos-winds-41012.xml"),
            to: input.appendingPathComponent("good.xml"))

        var configuration = DaemonConfiguration(
            storeURL: root.appendingPathComponent("store.sqlite"), spoolURL: root.appendingPathComponent("spool"),
            inputDirectory: input, outputDirectory: output)
        configuration.flushInterval = .milliseconds(100)
        configuration.rescanInterval = .milliseconds(20)
        configuration.spoolDurability = .none
        configuration.logLevel = .critical
        let daemon = JobDaemon(
            configuration: configuration, registry: SurfJournalJobs.registry, model: SurfJournalModel.model,
            logger: Logger(label: "test"))
        let spool = try SpoolDirectory(root: configuration.spoolURL, durability: .none)
        let badNames = Self.badDocuments.map(\.name) + ["invalid-utf8.xml"]
        for name in badNames + ["good.xml"] {
            try spool.enqueue(JobFile(kind: "import-buoy", id: name, parameters: ["input": .string(name)]))
        }
        let events = daemon.events()
        let running = Task { try await daemon.run() }
        var failed: [String: JobFailureReport] = [:]
        var done: [String] = []
        for await event in events {
            switch event {
            case let .jobFailed(job, report): failed[job.id ?? "?"] = report
            case let .jobAcknowledged(job, _): done.append(job.id ?? "?")
            default: break
            }
            if failed.count + done.count == badNames.count + 1 { daemon.requestShutdown() }
        }
        try await running.value

        #expect(done == ["good.xml"])
        #expect(Set(failed.keys) == Set(badNames))
        for (name, report) in failed {
            #expect(report.reason.contains(name), "the reason names the file: \(report.reason)")
            #expect(report.attempts == 1, "bad input is not retried: \(name)")
        }
        #expect(failed["billion-laughs.xml"]?.reason.lowercased().contains("entit") == true)
        #expect(failed["external-entity.xml"]?.reason.contains("external entity secret") == true)
        #expect(failed["external-entity.xml"]?.reason.contains("root:") == false, "the external entity was never read")
        let store = try SQLiteStore(url: configuration.storeURL, model: SurfJournalModel.model, logger: Logger(label: "check"))
        defer { try? store.close() }
        #expect(try store.rowCount(of: "BuoyObservation") == 24, "only the good file's rows")
        #expect(try store.integrityCheck() == "ok")
    }
}
