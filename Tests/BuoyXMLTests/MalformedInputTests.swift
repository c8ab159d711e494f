import BuoyXML
import Foundation
import Testing
import LineupTestSupport

/// Every way a file can fail to be a usable document, each with an error that names the file,
/// the line and the column.
@Suite("Malformed and unreadable input")
struct MalformedInputTests {
    private let winds = TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml")

    @Test("a truncated document fails, after the rows before the cut were delivered")
    func truncatedDocument() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOf: winds, encoding: .utf8)
        // Cut right after the 12th row of `swe:values`.
        let cut = try #require(text.range(of: "2011-03-01T12:50:00Z"))
        let rowStart = text[..<cut.lowerBound].lastIndex(of: "\n")!
        let truncated = try directory.file("truncated.xml", String(text[...rowStart]))
        var delivered: [BuoyObservationRecord] = []
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: truncated, onObservation: { delivered.append($0) }, onStation: { _ in })
            }
        )
        #expect(error.code == .malformedDocument)
        #expect(error.file == truncated.path)
        #expect(error.message == "Premature end of data in tag values")
        // Where the file ends: row 12 is line 104.
        #expect(error.line == 105)
        #expect(error.column == 1)
        #expect(delivered.count == 12)
        #expect(delivered.last?.time == utc("2011-03-01T11:50:00Z"))

        let validationError = try #require(buoyXMLError { _ = try BuoyXMLReader().validate(contentsOf: truncated) })
        #expect(validationError.code == .malformedDocument)
        #expect(validationError.line == 105)
        #expect(validationError.message == "Premature end of data in tag values")
    }

    @Test("a large document cut in the middle fails after delivering records across chunks")
    func truncatedLargeDocument() throws {
        let directory = try TemporaryDirectory()
        let complete = directory.url.appendingPathComponent("complete.xml")
        try SOSDocumentWriter.write(SampleObservations(seed: 7, count: 5000, stations: 2), to: complete)
        let data = try Data(contentsOf: complete)
        let truncated = try directory.file("cut.xml", data.prefix(data.count * 4 / 5))
        var delivered = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: truncated, onObservation: { _ in delivered += 1 }, onStation: { _ in })
            }
        )
        #expect(error.code == .malformedDocument)
        #expect(error.message.hasPrefix("Premature end of data in tag"))
        #expect(delivered > 3000)
        #expect(delivered < 5000)
    }

    @Test("a file that is not XML fails at line 1, column 1")
    func notXML() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("obs.xml", "station,time,wave_height\n41012,2011-03-01T00:50:00Z,1.2\n")
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .malformedDocument)
        // libxml2's push parser finds no document where no markup starts.
        #expect(error.message == "Document is empty")
        #expect(error.line == 1)
        #expect(error.column == 1)
        #expect(error.description == "\(file.path):1:1: Document is empty")
    }

    @Test("an empty file fails")
    func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("empty.xml", "")
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .malformedDocument)
        #expect(error.file == file.path)
        #expect(error.message == "Document is empty")
        #expect(error.line == 1)
        #expect(error.column == 1)
        let validationError = try #require(buoyXMLError { _ = try BuoyXMLReader().validate(contentsOf: file) })
        #expect(validationError.code == .malformedDocument)
    }

    @Test("a file of white space only fails")
    func whiteSpaceOnly() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("blank.xml", "\n\n   \n")
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .malformedDocument)
        #expect(error.message == "Document is empty")
        #expect(error.line == 4)
        #expect(error.column == 1)
    }

    @Test("invalid UTF-8 fails at the line of the bad bytes")
    func invalidUTF8() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <stations>
              <station id="a1" name="fine"/>
              <station id="a2" name="
            """.utf8
        )
        bytes += [0xC3, 0x28, 0xFF]
        bytes += Array("\"/>\n</stations>\n".utf8)
        let file = try directory.file("latin.xml", Data(bytes))
        var stations: [BuoyStationRecord] = []
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: file, onObservation: { _ in }, onStation: { stations.append($0) })
            }
        )
        #expect(error.code == .malformedDocument)
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("Input is not proper UTF-8, indicate encoding !"))
        #expect(stations.map(\.stationID) == ["A1"])
    }

    @Test("mismatched tags fail with the line and column")
    func mismatchedTags() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "broken.xml",
            """
            <?xml version="1.0"?>
            <rss version="2.0">
              <channel>
                <item><title>x</item>
              </channel>
            </rss>
            """
        )
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .malformedDocument)
        #expect(error.message == "Opening and ending tag mismatch: title line 4 and item")
        #expect(error.line == 4)
        #expect(error.column == 26)
    }

    @Test("an unknown root element fails with unsupportedFormat before any callback")
    func unknownRoot() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "exception.xml",
            """
            <?xml version="1.0"?>
            <ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
              <ows:Exception exceptionCode="InvalidParameterValue"/>
            </ows:ExceptionReport>
            """
        )
        var callbacks = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: file, onObservation: { _ in callbacks += 1 }, onStation: { _ in callbacks += 1 })
            }
        )
        #expect(error.code == .unsupportedFormat)
        #expect(error.line == 2)
        #expect(
            error.message
                == "root element {http://www.opengis.net/ows/1.1}ExceptionReport is not an NDBC latest_obs RSS feed, SOS ObservationCollection or activestations catalogue"
        )
        #expect(callbacks == 0)

        // Validation checks well-formedness only, and reports that the format is unknown.
        let validation = try BuoyXMLReader().validate(contentsOf: file)
        #expect(validation.format == nil)
        #expect(validation.elementCount == 2)
    }

    @Test("an ObservationCollection of another namespace is not taken for SOS")
    func wrongNamespace() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("om2.xml", "<ObservationCollection xmlns=\"http://example.com/om\"/>")
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .unsupportedFormat)
    }

    @Test("a missing file and a directory are unreadable")
    func unreadableFiles() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.xml")
        let missingError = try #require(buoyXMLError { _ = try readAll(missing) })
        #expect(missingError.code == .unreadableFile)
        #expect(missingError.file == missing.path)
        #expect(missingError.systemErrorNumber == ENOENT)

        let directoryError = try #require(buoyXMLError { _ = try readAll(directory.url) })
        #expect(directoryError.code == .unreadableFile)
        #expect(directoryError.systemErrorNumber == EISDIR)

        let remote = try #require(URL(string: "https://www.ndbc.noaa.gov/activestations.xml"))
        let remoteError = try #require(buoyXMLError { _ = try readAll(remote) })
        #expect(remoteError.code == .unreadableFile)
    }

    @Test("a text or token longer than the limit fails with limitExceeded")
    func textTooLong() throws {
        // The station URN in gml:name (26 bytes) is the first text the reader keeps.
        let tight = BuoyXMLLimits(maximumTextBytes: 16)
        let nameError = try #require(buoyXMLError { _ = try readAll(winds, limits: tight) })
        #expect(nameError.code == .limitExceeded)
        #expect(nameError.message == "a text is longer than 16 bytes")
        #expect(nameError.line == 11)

        // A row token is kept only when it spans two pieces of text from libxml2, which hands
        // over what it has of a text node: read 64 bytes at a time, a 5,000-byte token spans
        // many pieces, is kept, and is too long.
        let directory = try TemporaryDirectory()
        let text = try String(contentsOf: winds, encoding: .utf8)
            .replacingOccurrences(of: "urn:ioos:sensor:wmo:41012::anemometer1,2011-03-01T05:50:00Z", with: String(repeating: "s", count: 5000) + ",2011-03-01T05:50:00Z")
        let file = try directory.file("long-token.xml", text)
        let limits = BuoyXMLLimits(maximumTextBytes: 1000, chunkSize: 64)
        let tokenError = try #require(buoyXMLError { _ = try readAll(file, limits: limits) })
        #expect(tokenError.code == .limitExceeded)
        #expect(tokenError.message == "an SOS token is longer than 1000 bytes")
        #expect(tokenError.file == file.path)
        #expect(tokenError.line == 98)
        #expect(try readAll(file).observations.count == 24)
    }

    @Test("an error thrown by a callback stops the parse and is rethrown unchanged")
    func callbackErrorStopsParsing() throws {
        struct Full: Error, Equatable {}
        var observations = 0
        var stations = 0
        #expect(throws: Full()) {
            _ = try BuoyXMLReader().read(
                contentsOf: winds,
                onObservation: { _ in
                    observations += 1
                    if observations == 3 { throw Full() }
                },
                onStation: { _ in stations += 1 }
            )
        }
        #expect(observations == 3)
        #expect(stations == 1)

        var catalogued = 0
        #expect(throws: Full()) {
            _ = try BuoyXMLReader().read(
                contentsOf: TestPaths.corpusFile("ndbc-activestations-2025-06-13.xml"),
                onObservation: { _ in },
                onStation: { _ in
                    catalogued += 1
                    throw Full()
                }
            )
        }
        #expect(catalogued == 1)
    }
}
