import Foundation
import LineupSpool
import Testing

/// `JobClient`: typed enqueueing from Swift, into the spool (a database's jobs table is tested
/// beside the other database tests, and `lineup enqueue` against it in the CLI tests).
@Suite("Job client")
struct JobClientTests {
    struct Statistics: Codable, Equatable, Sendable {
        let output: String
        let stations: [String]
        let limit: Int?
    }

    @Test("a typed job goes into new/ with its parameters and every option as the job file's fields")
    func typedJobWithOptions() async throws {
        try await withSpool { spool in
            let notBefore = Date(timeIntervalSince1970: 1_830_000_000)  // 2027-12-28: still to come
            let options = JobOptions(
                id: "stats-11", after: ["import-11", "import-12"], maxAttempts: 3, baseDelay: .milliseconds(1500),
                timeout: .seconds(90), uniqueKey: "stats", notBefore: notBefore)
            let parameters = Statistics(output: "stats", stations: ["41012", "42002"], limit: 7)
            let receipt = try JobClient(spool: spool).enqueue("statistics", parameters, options: options)
            #expect(receipt.jobs == 1)
            #expect(try fileNames(in: spool, "new").map { spool.root.appending(path: "new").appending(path: $0).path } == [receipt.location])

            let job = try JobFile(data: Data(contentsOf: URL(fileURLWithPath: receipt.location)))
            #expect(job.kind == "statistics")
            #expect(job.id == "stats-11")
            #expect(job.after == ["import-11", "import-12"])
            #expect(job.maxAttempts == 3)
            #expect(job.baseDelay == .milliseconds(1500))
            #expect(job.timeout == .seconds(90))
            #expect(job.uniqueKey == "stats")
            #expect(job.notBefore == notBefore)
            #expect(try job.parameters(as: Statistics.self) == parameters)
            // The spool keeps notBefore in the name, so claimers skip the job until then.
            #expect(try spool.claimNext() == nil)
        }
    }

    @Test("the job file is the one a producer would write by hand, field for field")
    func sameFileAsTheUntypedInitializer() throws {
        let typed = try JobFile(
            kind: "statistics", parameters: Statistics(output: "stats", stations: [], limit: nil),
            options: JobOptions(id: "s", timeout: .seconds(600)))
        let byHand = try JobFile(kind: "statistics", id: "s", timeout: .seconds(600), parameters: ["output": "stats", "stations": .array([])])
        #expect(try typed.encoded() == byHand.encoded())
    }

    @Test("parameters that are not a JSON object, or that reuse a common field's name, are refused and nothing is written")
    func invalidParametersWriteNothing() async throws {
        struct Clashing: Encodable { let id: String }
        try await withSpool { spool in
            let client = JobClient(spool: spool)
            let notAnObject = try #require(throws: SpoolError.self) { try client.enqueue("statistics", ["a", "b"]) }
            #expect(notAnObject.code == .invalidField)
            #expect(notAnObject.description.contains("the parameters of a statistics job must encode as a JSON object"))
            let clash = try #require(throws: SpoolError.self) { try client.enqueue("statistics", Clashing(id: "x")) }
            #expect(clash.code == .invalidField)
            #expect(clash.description.contains("parameter `id` clashes with the common job field"))
            let badOption = try #require(throws: SpoolError.self) {
                try client.enqueue("statistics", Statistics(output: "o", stations: [], limit: nil), options: JobOptions(maxAttempts: 0))
            }
            #expect(badOption.code == .invalidField)
            #expect(try fileNames(in: spool, "new").isEmpty)
            #expect(try fileNames(in: spool, "tmp").isEmpty)
        }
    }

    @Test("jobs enqueued together go in as one bulk file, in their order")
    func manyJobsAsOneBulkFile() async throws {
        try await withSpool { spool in
            let jobs = try (1...4).map { try JobFile(kind: "import-buoy", parameters: ["input": .string("obs/\($0).xml")], options: JobOptions()) }
            let receipt = try JobClient(spool: spool).enqueue(contentsOf: jobs)
            #expect(receipt.jobs == 4)
            let names = try fileNames(in: spool, "new")
            #expect(names.count == 1 && names[0].hasSuffix(".jobs.jsonl"), "\(names)")
            var claimed: [JobFile] = []
            while let job = try spool.claimNext() {
                claimed.append(try JobFile(data: job.contents))
            }
            #expect(claimed == jobs)
        }
    }
}
