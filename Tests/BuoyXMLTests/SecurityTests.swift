import BuoyXML
import Foundation
import Testing

/// The reader never reads outside the document (no network, no external entity, no external
/// DTD) and bounds entity expansion.
@Suite("Hostile documents")
struct SecurityTests {
    /// An RSS item whose title and wind line reference external entities: the document is
    /// refused with an error, and the marker files are never read.
    @Test("an external general entity is never read")
    func externalEntityIsNotRead() throws {
        let directory = try TemporaryDirectory()
        let nameFile = try directory.file("name.txt", "LEAKED-MARKER-5d41")
        let speedFile = try directory.file("speed.txt", "12")
        let document = try directory.file(
            "feed.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [
              <!ENTITY name SYSTEM "\(nameFile.absoluteString)">
              <!ENTITY speed SYSTEM "\(speedFile.absoluteString)">
            ]>
            <rss version="2.0">
              <channel>
                <title>NDBC - Station 99001 - &name; Observations</title>
                <item>
                  <title>Station 99001 - &name;</title>
                  <description>&lt;strong&gt;Wind Speed:&lt;/strong&gt; &speed; knots&lt;br /&gt;
                    &lt;strong&gt;Significant Wave Height:&lt;/strong&gt; 3.3 ft&lt;br /&gt;</description>
                  <guid isPermaLink="false">NDBC-99001-20240105063000</guid>
                </item>
              </channel>
            </rss>
            """
        )
        // Refused outright, before the first element: nothing of the document is delivered, and
        // the files are never opened.
        var delivered = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(
                    contentsOf: document, onObservation: { _ in delivered += 1 }, onStation: { _ in delivered += 1 })
            })
        #expect(error.code == .externalEntity)
        #expect(error.message.contains("external entity name"))
        #expect(!error.description.contains("LEAKED"))
        #expect(error.line == 3)
        #expect(error.file == document.path)
        #expect(delivered == 0)
    }

    @Test("an external DTD is not loaded, so its entities stay undefined")
    func externalDTDIsNotLoaded() throws {
        let directory = try TemporaryDirectory()
        let dtd = try directory.file("evil.dtd", "<!ENTITY leak \"LEAKED-MARKER-5d41\">")
        let document = try directory.file(
            "stations.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE stations SYSTEM "\(dtd.absoluteString)">
            <stations><station id="x1" name="&leak;"/></stations>
            """
        )
        let error = try #require(buoyXMLError { _ = try readAll(document) })
        #expect(error.code == .malformedDocument)
        #expect(error.message == "Entity 'leak' not defined")
        #expect(error.line == 3)
        #expect(error.file == document.path)
    }

    @Test("an external parameter entity is not read")
    func externalParameterEntityIsNotRead() throws {
        let directory = try TemporaryDirectory()
        let parameterFile = try directory.file("parameter.dtd", "<!ENTITY leak \"LEAKED-MARKER-5d41\">")
        let document = try directory.file(
            "stations.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE stations [
              <!ENTITY % external SYSTEM "\(parameterFile.absoluteString)">
              %external;
            ]>
            <stations><station id="x1" name="&leak;"/></stations>
            """
        )
        let error = try #require(buoyXMLError { _ = try readAll(document) })
        #expect(error.code == .externalEntity)
        #expect(error.message.contains("external entity external"))
        #expect(!error.description.contains("LEAKED"))
    }

    @Test("billion laughs fails with an error instead of expanding")
    func billionLaughs() throws {
        let directory = try TemporaryDirectory()
        var declarations = "<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            let previous = String(repeating: "&lol\(level - 1);", count: 10)
            declarations += "<!ENTITY lol\(level) \"\(previous)\">\n"
        }
        let document = try directory.file(
            "laughs.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [
            \(declarations)]>
            <rss version="2.0"><channel><item><title>&lol9;</title></item></channel></rss>
            """
        )
        var observations = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: document, onObservation: { _ in observations += 1 }, onStation: { _ in })
            }
        )
        #expect(error.code == .malformedDocument)
        #expect(error.message == "Detected an entity reference loop")
        #expect(error.line == 14)
        #expect(observations == 0)

        let validationError = try #require(buoyXMLError { _ = try BuoyXMLReader().validate(contentsOf: document) })
        #expect(validationError.code == .malformedDocument)
    }

    @Test("quadratic blow-up (one large entity referenced many times) fails with an error")
    func quadraticBlowUp() throws {
        let directory = try TemporaryDirectory()
        let big = String(repeating: "x", count: 50_000)
        let references = String(repeating: "&big;", count: 50_000)
        let document = try directory.file(
            "quadratic.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY big "\(big)">]>
            <rss version="2.0"><channel><item><title>\(references)</title></item></channel></rss>
            """
        )
        // libxml2 2.9 lets this one through; the reader's own bound on text stops it, both
        // when reading and when validating.
        let error = try #require(buoyXMLError { _ = try readAll(document) })
        #expect(error.code == .limitExceeded)
        #expect(error.line == 3)
        let validationError = try #require(buoyXMLError { _ = try BuoyXMLReader().validate(contentsOf: document) })
        #expect(validationError.code == .limitExceeded)
        #expect(validationError.message == "entities expand to more than four times the size of the document")
    }

    @Test("internal entities within bounds are expanded")
    func internalEntityExpands() throws {
        let directory = try TemporaryDirectory()
        let document = try directory.file(
            "stations.xml",
            """
            <?xml version="1.0"?>
            <!DOCTYPE stations [<!ENTITY owner "Lineup &amp; Friends">]>
            <stations><station id="x1" owner="&owner;"/></stations>
            """
        )
        let result = try readAll(document)
        #expect(result.stations.map(\.owner) == ["Lineup & Friends"])
    }
}
