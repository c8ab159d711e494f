import BuoyXML
import Foundation
import Testing

/// A document that yields nothing is an error that says what it holds; a document of another
/// format is refused by name.
@Suite("Nothing readable")
struct NothingReadableTests {
    /// The 1-based line and column of the first `needle` in `document`, counted here
    /// independently of the reader.
    private func position(of needle: String, in document: String) throws -> (line: Int, column: Int) {
        let range = try #require(document.range(of: needle))
        let before = document[..<range.lowerBound]
        let line = before.count(where: { $0 == "\n" }) + 1
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        return (line, before[lineStart...].count + 1)
    }

    private func feed(_ items: [String]) -> String {
        """
        <?xml version="1.0"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss">
          <channel>
            <title>NDBC - Station 42002 - WEST GULF Observations</title>
        \(items.joined(separator: "\n"))
          </channel>
        </rss>
        """
    }

    private func item(dateLine: String, guid: String? = nil, title: String = "Station 42002 - WEST GULF") -> String {
        """
            <item>
              <title>\(title)</title>
              <description><![CDATA[
                <strong>\(dateLine)</strong><br />
                <strong>Wind Speed:</strong> 9.7 knots<br />
                <strong>Significant Wave Height:</strong> 8.2 ft<br />
              ]]></description>
        \(guid.map { "      <guid isPermaLink=\"false\">\($0)</guid>" } ?? "")
            </item>
        """
    }

    @Test("an RSS feed whose dates cannot be read: how many items, none with a readable time, the first text and where")
    func rssWithUnreadableDates() throws {
        let directory = try TemporaryDirectory()
        let document = feed([
            item(dateLine: "February 27, 2022 5:20 am XST"),
            item(dateLine: "February 30, 2022 6:20 am CST"),
        ])
        let url = try directory.file("42002.rss", document)
        let result = try #require(readYieldingNothing(url))
        #expect(result.callbacks == 0)
        #expect(result.summary.format == .ndbcLatestObservationRSS)
        #expect(result.summary.recordCount == 2)
        #expect(result.summary.rejectedRecords == [BuoyRejection.recordWithUnreadableTime: 2])
        let at = try position(of: "<strong>February 27", in: document)
        let example = try #require(result.summary.rejectedRecordExamples[BuoyRejection.recordWithUnreadableTime])
        #expect(example == BuoyDocumentText(text: "February 27, 2022 5:20 am XST", line: at.line, column: at.column))
        #expect(
            result.error.description
                == "\(url.path): no observation the importer can read: found 2 RSS items; 2 records skipped: "
                + "2 with unreadable time (first \"February 27, 2022 5:20 am XST\" at line \(at.line), column \(at.column))"
        )
    }

    @Test("the position of a date line that starts on the line of its CDATA, or of its description, is exact")
    func positionOnTheFirstLine() throws {
        let directory = try TemporaryDirectory()
        for description in [
            "<description><![CDATA[<strong>May 5, 2023 8:00 xm EDT</strong><br /><strong>Wind Speed:</strong> 3 knots<br />]]></description>",
            "<description>  &lt;strong>May 5, 2023 8:00 xm EDT&lt;/strong>&lt;br />\n<![CDATA[<strong>Wind Speed:</strong> 3 knots]]></description>",
        ] {
            let document = feed(["    <item><title>Station 42002</title>" + description + "</item>"])
            let result = try #require(readYieldingNothing(try directory.file("feed.rss", document)))
            let example = try #require(result.summary.rejectedRecordExamples[BuoyRejection.recordWithUnreadableTime])
            let at = try position(of: description.hasPrefix("<description><![CDATA[") ? "<strong>May" : "&lt;strong>May", in: document)
            #expect(example == BuoyDocumentText(text: "May 5, 2023 8:00 xm EDT", line: at.line, column: at.column), "\(description)")
        }
    }

    @Test("without a date line, the unreadable guid is the example")
    func unreadableGuidIsTheExample() throws {
        let directory = try TemporaryDirectory()
        let document = feed([
            """
                <item><title>Station 42002</title>
                  <description><![CDATA[<strong>Wind Speed:</strong> 9.7 knots<br />]]></description>
                  <guid>
                    NDBC-42002-2022022711</guid>
                </item>
            """
        ])
        let result = try #require(readYieldingNothing(try directory.file("feed.rss", document)))
        let at = try position(of: "NDBC-42002", in: document)
        #expect(
            result.summary.rejectedRecordExamples == [
                BuoyRejection.recordWithUnreadableTime: BuoyDocumentText(text: "NDBC-42002-2022022711", line: at.line, column: at.column)
            ])
    }

    @Test("a feed without items, or with items the model holds nothing of, says so")
    func rssWithoutItemsOrValues() throws {
        let directory = try TemporaryDirectory()
        let empty = try #require(readYieldingNothing(try directory.file("empty.rss", feed([]))))
        #expect(empty.error.message == "no observation the importer can read: found no RSS item")

        let tideOnly = feed([
            """
                <item><title>Station 8771450</title><guid>NDBC-8771450-20220227112000</guid>
                  <description><![CDATA[<strong>Tide:</strong> -0.31 ft<br /><strong>Dew Point:</strong> 72.3&#176;F<br />]]></description>
                </item>
            """
        ])
        let result = try #require(readYieldingNothing(try directory.file("tide.rss", tideOnly)))
        #expect(
            result.error.message
                == "no observation the importer can read: found 1 RSS item, none with a value of a property the model holds; "
                + "values of other properties: Dew Point (1), Tide (1)")
    }

    @Test("a feed of which some items are readable succeeds and says how many were skipped and why")
    func partlyReadableFeed() throws {
        let directory = try TemporaryDirectory()
        let document = feed([
            item(dateLine: "February 27, 2022 5:20 am CST"),
            item(dateLine: "February 27, 2022 5:50 am Central", title: "Station 42001 - MID GULF"),
        ])
        let result = try readAll(try directory.file("feed.rss", document))
        #expect(result.observations.map(\.time) == [utc("2022-02-27T11:20:00Z")])
        #expect(result.summary.recordCount == 2)
        let at = try position(of: "<strong>February 27, 2022 5:50", in: document)
        #expect(
            result.summary.skippedRecordsDescription
                == "1 record skipped: 1 with unreadable time (first \"February 27, 2022 5:50 am Central\" at line \(at.line), column \(at.column))"
        )
    }

    @Test("SOS rows whose times cannot be read: the row and the swe:values it is in")
    func sosWithUnreadableTimes() throws {
        let directory = try TemporaryDirectory()
        let winds = try String(contentsOf: TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml"), encoding: .utf8)
        let document = winds.replacingOccurrences(of: "Z,", with: "+25:00,")
        let result = try #require(readYieldingNothing(try directory.file("winds.xml", document)))
        #expect(result.callbacks == 0)
        #expect(result.summary.recordCount == 24)
        #expect(result.summary.rejectedRecords == [BuoyRejection.recordWithUnreadableTime: 24])
        let valuesTag = try position(of: "<swe:values>", in: document)
        #expect(
            result.summary.rejectedRecordExamples[BuoyRejection.recordWithUnreadableTime]
                == BuoyDocumentText(
                    text: "2011-03-01T00:50:00+25:00", line: valuesTag.line, column: valuesTag.column + "<swe:values".count, row: 1))
        #expect(
            result.error.message.hasPrefix(
                "no observation the importer can read: found 24 SOS rows; 24 records skipped: 24 with unreadable time "
                    + "(first \"2011-03-01T00:50:00+25:00\" in row 1 of the swe:values at line \(valuesTag.line)"))
    }

    @Test("a catalogue of stations without ids holds no station")
    func catalogueWithoutIDs() throws {
        let directory = try TemporaryDirectory()
        let document = """
            <stations created="2025-06-13T12:00:01UTC" count="2">
              <station id="" lat="26.055" lon="-93.646" name="WEST GULF" owner="NDBC" type="buoy"/>
              <station lat="25.9" lon="-89.65" name="" owner="NDBC" type="buoy"/>
            </stations>
            """
        let result = try #require(readYieldingNothing(try directory.file("activestations.xml", document)))
        #expect(result.summary.recordCount == 2)
        let at = try position(of: "/>", in: document)
        #expect(
            result.error.message
                == "no station the importer can read: found 2 <station/> elements; 2 records skipped: "
                + "2 station without id (first \"<station name=\"WEST GULF\">\" at line \(at.line), column \(at.column))")
    }

    @Test("an O&M ObservationCollection that is not an IOOS SOS response is refused by name, with what it holds")
    func foreignObservationCollection() throws {
        let directory = try TemporaryDirectory()
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:gml="http://www.opengis.net/gml"
                xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:wml2="http://www.opengis.net/waterml/2.0">
              <gml:metaDataProperty><gml:GenericMetaData>tide gauge</gml:GenericMetaData></gml:metaDataProperty>
              <om:member>
                <om:Measurement>
                  <om:samplingTime><gml:TimeInstant><gml:timePosition>2022-02-27T11:20:00Z</gml:timePosition></gml:TimeInstant></om:samplingTime>
                  <om:procedure xlink:href="urn:example:gauge:8771450"/>
                  <om:observedProperty xlink:href="urn:ogc:def:phenomenon:OGC:1.0.30:waterlevel"/>
                  <om:featureOfInterest xlink:href="urn:example:station:8771450"/>
                  <om:result uom="m">-0.094</om:result>
                </om:Measurement>
              </om:member>
              <om:member>
                <om:Observation>
                  <om:samplingTime><gml:TimeInstant><gml:timePosition>2022-02-27T11:20:00Z</gml:timePosition></gml:TimeInstant></om:samplingTime>
                  <om:procedure xlink:href="urn:example:gauge:8771450"/>
                  <om:observedProperty xlink:href="urn:ogc:def:phenomenon:OGC:1.0.30:waterlevel"/>
                  <om:featureOfInterest xlink:href="urn:example:station:8771450"/>
                  <om:result><wml2:MeasurementTimeseries gml:id="ts1"/></om:result>
                </om:Observation>
              </om:member>
            </om:ObservationCollection>
            """
        let url = try directory.file("waterlevel.xml", document)
        var callbacks = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: url, onObservation: { _ in callbacks += 1 }, onStation: { _ in callbacks += 1 })
            })
        #expect(callbacks == 0)
        #expect(error.code == .unsupportedFormat)
        #expect(
            error.description
                == "\(url.path): root element {http://www.opengis.net/om/1.0}ObservationCollection is an O&M collection but not an IOOS SOS "
                + "response: none of its 2 om:member elements holds an om:Observation whose om:result is a swe:DataStream or swe:DataArray "
                + "(found {http://www.opengis.net/om/1.0}Measurement, om:result holding {http://www.opengis.net/waterml/2.0}MeasurementTimeseries)"
        )
        // Well-formed all the same: validation passes and names the root's format.
        #expect(try BuoyXMLReader().validate(contentsOf: url).format == .ndbcSOSObservationCollection)

        let empty = try directory.file("empty.xml", "<ObservationCollection xmlns=\"http://www.opengis.net/om/1.0\"/>")
        #expect(buoyXMLError { _ = try readAll(empty) }?.message.hasSuffix("not an IOOS SOS response: it has no om:member") == true)
    }

    @Test("an unknown root element is refused by its name and namespace")
    func unknownRootElement() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file(
            "exception.xml",
            """
            <?xml version="1.0"?>
            <ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
              <ows:Exception exceptionCode="InvalidParameterValue" locator="offering"/>
            </ows:ExceptionReport>
            """)
        var callbacks = 0
        let error = try #require(
            buoyXMLError {
                _ = try BuoyXMLReader().read(contentsOf: url, onObservation: { _ in callbacks += 1 }, onStation: { _ in callbacks += 1 })
            })
        #expect(callbacks == 0)
        #expect(error.code == .unsupportedFormat)
        #expect(error.file == url.path)
        #expect(error.message.hasPrefix("root element {http://www.opengis.net/ows/1.1}ExceptionReport is not an NDBC"))
        #expect(error.line == 2)
    }
}
