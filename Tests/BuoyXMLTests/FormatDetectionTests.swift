import BuoyXML
import Foundation
import Testing

/// The format comes from the document, never from the file name.
@Suite("Format detection")
struct FormatDetectionTests {
    @Test(
        "a corpus file under a misleading name is read as what it is",
        arguments: [
            ("pyoos-ndbc-sos-winds-41012.xml", "activestations.xml", BuoyXMLFormat.ndbcSOSObservationCollection, 24, 1),
            ("ndbc-activestations-2025-06-13.xml", "42002.rss", BuoyXMLFormat.ndbcActiveStations, 0, 1350),
            ("ndbc-rss-42002-2022-02-27.xml", "winds.sos", BuoyXMLFormat.ndbcLatestObservationRSS, 1, 1),
        ]
    )
    func misleadingNames(original: String, disguise: String, format: BuoyXMLFormat, observations: Int, stations: Int) throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.file(disguise, Data(contentsOf: TestPaths.corpusFile(original)))
        let result = try readAll(copy)
        #expect(result.summary.format == format)
        #expect(result.summary.observationCount == observations)
        #expect(result.summary.stationCount == stations)
        #expect(try BuoyXMLReader().validate(contentsOf: copy).format == format)
    }

    @Test("a document that yields nothing under a misleading name is still recognised")
    func misleadingNameOfADocumentThatYieldsNothing() throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.file("no-extension", Data(contentsOf: TestPaths.corpusFile("pyoos-ndbc-sos-salinity-48900-trajectory.xml")))
        let result = try #require(readYieldingNothing(copy))
        #expect(result.summary.format == .ndbcSOSObservationCollection)
        #expect(try BuoyXMLReader().validate(contentsOf: copy).format == .ndbcSOSObservationCollection)
    }

    @Test("detection looks at the root element and its namespace, after a prolog of any length")
    func rootDetection() throws {
        let directory = try TemporaryDirectory()
        let prolog = "<?xml version=\"1.0\"?>\n<!-- " + String(repeating: "comment ", count: 20_000) + "-->\n<?xml-stylesheet href=\"x.xsl\"?>\n"
        let stations = try directory.file("a", prolog + "<stations><station id=\"x1\"/></stations>")
        #expect(try readAll(stations).summary.format == .ndbcActiveStations)

        // An SOS response under another prefix, or in the default namespace, is still SOS.
        let winds = try String(contentsOf: TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml"), encoding: .utf8)
        let prefixed = try directory.file(
            "b",
            winds.replacingOccurrences(of: "<om:", with: "<collection:").replacingOccurrences(of: "</om:", with: "</collection:")
                .replacingOccurrences(of: "xmlns:om=", with: "xmlns:collection=")
        )
        #expect(try readAll(prefixed).summary.format == .ndbcSOSObservationCollection)
        #expect(try readAll(prefixed).observations.count == 24)

        let defaultNamespace = try directory.file(
            "c",
            winds.replacingOccurrences(of: "<om:", with: "<").replacingOccurrences(of: "</om:", with: "</")
                .replacingOccurrences(of: "xmlns:om=", with: "xmlns=")
        )
        #expect(try readAll(defaultNamespace).observations.count == 24)

        // An `rss` or `stations` element in a namespace is somebody else's.
        let namespacedRSS = try directory.file("d", "<rss xmlns=\"http://purl.org/rss/1.0/\"/>")
        #expect(buoyXMLError { _ = try readAll(namespacedRSS) }?.code == .unsupportedFormat)
        let atom = try directory.file("e", "<feed xmlns=\"http://www.w3.org/2005/Atom\"/>")
        #expect(buoyXMLError { _ = try readAll(atom) }?.message.hasPrefix("root element {http://www.w3.org/2005/Atom}feed") == true)
    }

    @Test("UTF-16 documents are read like UTF-8 ones")
    func utf16() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOf: TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml"), encoding: .utf8)
            .replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
        var data = Data([0xFF, 0xFE])
        data.append(try #require(text.data(using: .utf16LittleEndian)))
        let file = try directory.file("winds-utf16.xml", data)
        let result = try readAll(file)
        let original = try readAll(TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml"))
        #expect(result.observations == original.observations)
        #expect(result.summary.format == .ndbcSOSObservationCollection)
    }
}
