import BuoyXML
import Dispatch
import Foundation
import Synchronization
import Testing
import LineupTestSupport

/// Parses share no state: two files read at the same time on two threads give what they give
/// alone (run under `--sanitize=thread` to check for races).
@Suite("Concurrent reads")
struct ConcurrencyTests {
    @Test("two files parsed concurrently on two threads")
    func twoThreads() throws {
        let directory = try TemporaryDirectory()
        let generated = directory.url.appendingPathComponent("generated.xml")
        try SOSDocumentWriter.write(SampleObservations(seed: 3, count: 3000, stations: 2), to: generated)
        let files = [generated, TestPaths.corpusFile("ndbc-activestations-2025-06-13.xml")]
        let expected = try files.map { try readAll($0) }

        let reader = BuoyXMLReader()
        let results = Mutex<[Int: (summary: BuoyReadSummary, observations: [BuoyObservationRecord], stations: [BuoyStationRecord])]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { iteration in
            let index = iteration % 2
            var observations: [BuoyObservationRecord] = []
            var stations: [BuoyStationRecord] = []
            do {
                let summary = try reader.read(
                    contentsOf: files[index],
                    onObservation: { observations.append($0) },
                    onStation: { stations.append($0) }
                )
                results.withLock { $0[iteration] = (summary, observations, stations) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let collected = results.withLock { $0 }
        #expect(collected.count == 4)
        for (iteration, result) in collected {
            let reference = expected[iteration % 2]
            #expect(result.summary == reference.summary)
            #expect(result.observations == reference.observations)
            #expect(result.stations == reference.stations)
        }
    }
}
