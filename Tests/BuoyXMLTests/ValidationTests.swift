import BuoyXML
import Foundation
import Testing

/// `validate(contentsOf:)`: the well-formedness pass run before an import.
@Suite("Validation")
struct ValidationTests {
    @Test(
        "element and byte counts of the corpus files",
        arguments: [
            ("pyoos-ndbc-sos-winds-41012.xml", 6499, 61, BuoyXMLFormat.ndbcSOSObservationCollection),
            ("ndbc-activestations-2025-06-13.xml", 272_200, 1351, BuoyXMLFormat.ndbcActiveStations),
            ("ndbc-rss-42002-2022-02-27.xml", 2453, 23, BuoyXMLFormat.ndbcLatestObservationRSS),
            ("pyoos-ndbc-sos-salinity-48900-trajectory.xml", 167_586, 52, BuoyXMLFormat.ndbcSOSObservationCollection),
        ]
    )
    func corpus(name: String, bytes: Int, elements: Int, format: BuoyXMLFormat) throws {
        let validation = try BuoyXMLReader().validate(contentsOf: TestPaths.corpusFile(name))
        #expect(validation == BuoyXMLValidation(byteCount: bytes, elementCount: elements, format: format))
        let small = try BuoyXMLReader(limits: BuoyXMLLimits(chunkSize: 5)).validate(contentsOf: TestPaths.corpusFile(name))
        #expect(small == validation)
    }

    @Test("validation reports the same bytes as a read")
    func sameBytesAsRead() throws {
        let url = TestPaths.corpusFile("pyoos-ndbc-sos-currents-41012-profile.xml")
        let validation = try BuoyXMLReader().validate(contentsOf: url)
        // The currents hold nothing the reader delivers: the read's summary comes with its error.
        let summary = try #require(readYieldingNothing(url)).summary
        #expect(validation.byteCount == summary.byteCount)
        #expect(validation.byteCount == 39_797)
    }
}
