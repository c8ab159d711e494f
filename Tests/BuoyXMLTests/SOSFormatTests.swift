import BuoyXML
import Foundation
import Testing

/// The variations of SOS `swe:values` the reader must follow from the declarations.
@Suite("SOS ObservationCollection")
struct SOSFormatTests {
    private let winds = TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml")

    /// A one-member document with the given fields (already written), encoding and values.
    private func document(fields: String, encoding: String, values: String, stationField: Bool = true) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:gml="http://www.opengis.net/gml" xmlns:swe="http://www.opengis.net/swe/1.0" xmlns:xlink="http://www.w3.org/1999/xlink">
          <om:member>
            <om:Observation>
              <gml:name>urn:ioos:station:wmo:44013</gml:name>
              <om:result>
                <swe:DataStream definition="timeSeries">
                  \(stationField ? "<swe:field name=\"station_id\"><swe:Text><swe:value>urn:ioos:station:wmo:44013</swe:value></swe:Text></swe:field>" : "")
                  \(fields)
                  <swe:encoding>\(encoding)</swe:encoding>
                  <swe:values>\(values)</swe:values>
                </swe:DataStream>
              </om:result>
            </om:Observation>
          </om:member>
        </om:ObservationCollection>
        """
    }

    private let timeAndHeight = """
        <swe:field name="time"><swe:Time definition="http://www.opengis.net/def/property/OGC/0/SamplingTime"/></swe:field>
        <swe:field name="sea_surface_wave_significant_height"><swe:Quantity><swe:uom code="m"/></swe:Quantity></swe:field>
        <swe:field name="sea_surface_wave_peak_period"><swe:Quantity><swe:uom code="s"/></swe:Quantity></swe:field>
        """

    @Test("the result is the same whatever the chunk size (tokens cut anywhere)", arguments: [1, 2, 3, 7, 64, 301, 4096])
    func chunkSizes(chunkSize: Int) throws {
        let reference = try readAll(winds)
        let result = try readAll(winds, limits: BuoyXMLLimits(chunkSize: chunkSize))
        #expect(result.observations == reference.observations)
        #expect(result.stations == reference.stations)
        #expect(result.summary == reference.summary)
    }

    @Test("multi-character separators, a real newline, and a decimal comma")
    func separators() throws {
        let directory = try TemporaryDirectory()
        let expected = [
            BuoyObservationRecord(stationID: "44013", time: utc("2024-05-01T00:00:00Z"), waveHeight: 1.25, dominantPeriod: 9),
            BuoyObservationRecord(stationID: "44013", time: utc("2024-05-01T01:00:00Z"), waveHeight: 1.5),
        ]
        let variants: [(encoding: String, values: String)] = [
            (
                #"<swe:TextEncoding decimalSeparator="." tokenSeparator="," blockSeparator="@@"/>"#,
                "2024-05-01T00:00:00Z,1.25,9@@2024-05-01T01:00:00Z,1.5,@@"
            ),
            (
                #"<swe:TextEncoding decimalSeparator="." tokenSeparator="::" blockSeparator="&#10;"/>"#,
                "\n2024-05-01T00:00:00Z::1.25::9\n\n2024-05-01T01:00:00Z::1.5::\n"
            ),
            (
                #"<swe:TextEncoding decimalSeparator="," tokenSeparator=";" blockSeparator=" "/>"#,
                "2024-05-01T00:00:00Z;1,25;9 2024-05-01T01:00:00Z;1,5;"
            ),
            (
                #"<swe:TextEncoding decimalSeparator="." tokenSeparator="," blockSeparator="\r\n"/>"#,
                "2024-05-01T00:00:00Z, 1.25 ,9\r\n2024-05-01T01:00:00Z,1.5,\r\n"
            ),
        ]
        for (index, variant) in variants.enumerated() {
            let file = try directory.file("v\(index).xml", document(fields: timeAndHeight, encoding: variant.encoding, values: variant.values))
            let result = try readAll(file)
            #expect(result.observations == expected, "\(variant.encoding)")
            #expect(result.summary.rejectedRecords.isEmpty, "\(variant.encoding)")
            let small = try readAll(file, limits: BuoyXMLLimits(chunkSize: 3))
            #expect(small.observations == expected, "\(variant.encoding), small chunks")
        }
    }

    @Test("identical token and block separators are refused")
    func ambiguousSeparators() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "same.xml",
            document(fields: timeAndHeight, encoding: #"<swe:TextEncoding tokenSeparator="," blockSeparator=","/>"#, values: "")
        )
        let error = try #require(buoyXMLError { _ = try readAll(file) })
        #expect(error.code == .unsupportedFormat)
        #expect(error.message == "swe:TextEncoding needs distinct token and block separators")
    }

    @Test("rows with the wrong number of tokens, or without a usable time, are counted, not delivered")
    func badRows() throws {
        let directory = try TemporaryDirectory()
        let values = """
            2024-05-01T00:00:00Z,1.25,9
            2024-05-01T01:00:00Z,1.5
            2024-05-01T02:00:00Z,1.5,9,12
            ,1.5,9
            yesterday,1.5,9
            2024-05-01T05:00:00,1.5,9
            2024-05-01T06:00:00+02:00,1.75,10
            2024-05-01T07:30:15.5Z,2,
            2024-02-30T00:00:00Z,1.5,9
            2024-05-01T08:00:00Z,,
            """
        let file = try directory.file(
            "rows.xml",
            document(fields: timeAndHeight, encoding: #"<swe:TextEncoding tokenSeparator="," blockSeparator="\n"/>"#, values: values)
        )
        let result = try readAll(file)
        #expect(
            result.observations == [
                BuoyObservationRecord(stationID: "44013", time: utc("2024-05-01T00:00:00Z"), waveHeight: 1.25, dominantPeriod: 9),
                BuoyObservationRecord(stationID: "44013", time: utc("2024-05-01T04:00:00Z"), waveHeight: 1.75, dominantPeriod: 10),
                BuoyObservationRecord(stationID: "44013", time: utc("2024-05-01T07:30:15Z").addingTimeInterval(0.5), waveHeight: 2),
            ]
        )
        #expect(
            result.summary.rejectedRecords == [
                "row with wrong number of tokens": 2,
                "record without time": 1,
                "record with unreadable time": 3,
            ]
        )
    }

    @Test("the station may be a column; each station is announced once, before its first row")
    func stationColumn() throws {
        let directory = try TemporaryDirectory()
        let fields = """
            <swe:field name="station_id"><swe:Text definition="http://fixme.vocab/station"/></swe:field>
            <swe:field name="location"><swe:Vector>
              <swe:coordinate name="lat"><swe:Quantity axisID="Lat"><swe:uom code="deg"/></swe:Quantity></swe:coordinate>
              <swe:coordinate name="lon"><swe:Quantity axisID="Long"><swe:uom code="deg"/></swe:Quantity></swe:coordinate>
            </swe:Vector></swe:field>
            \(timeAndHeight)
            """
        let values = """
            urn:ioos:station:wmo:44013,42.346,-70.651,2024-05-01T00:00:00Z,1.25,9
            urn:ioos:station:wmo:44013,42.346,-70.651,2024-05-01T01:00:00Z,1.5,9
            urn:ioos:station:wmo:44008,40.496,-69.251,2024-05-01T00:00:00Z,2.5,11
            urn:ioos:station:wmo:44013,42.346,-70.651,2024-05-01T02:00:00Z,1.75,10
            """
        let file = try directory.file(
            "network.xml",
            document(fields: fields, encoding: #"<swe:TextEncoding tokenSeparator="," blockSeparator="\n"/>"#, values: values, stationField: false)
        )
        var events: [String] = []
        _ = try BuoyXMLReader().read(
            contentsOf: file,
            onObservation: { events.append("observation \($0.stationID) \($0.waveHeight!)") },
            onStation: { events.append("station \($0.stationID)") }
        )
        #expect(
            events == [
                "station 44013", "observation 44013 1.25", "observation 44013 1.5",
                "station 44008", "observation 44008 2.5", "observation 44013 1.75",
            ]
        )
    }

    @Test("several members, a direction to turn round, units to convert, unknown fields counted")
    func membersUnitsAndDirections() throws {
        let directory = try TemporaryDirectory()
        func member(_ station: String, _ values: String) -> String {
            """
            <om:member><om:Observation>
              <gml:name>urn:ioos:station:wmo:\(station)</gml:name>
              <om:featureOfInterest><gml:FeatureCollection><gml:metaDataProperty>
                <gml:name codeSpace="http://cf-pcmdi.llnl.gov/documents/cf-conventions/1.6/cf-conventions.html#discrete-sampling-geometries">timeSeries</gml:name>
              </gml:metaDataProperty></gml:FeatureCollection></om:featureOfInterest>
              <om:result><swe:DataArray>
                <swe:elementCount><swe:Count><swe:value>2</swe:value></swe:Count></swe:elementCount>
                <swe:elementType name="observations"><swe:DataRecord>
                  <swe:field name="date_time"><swe:Time/></swe:field>
                  <swe:field name="sea_surface_wave_to_direction"><swe:Quantity><swe:uom code="degree"/></swe:Quantity></swe:field>
                  <swe:field name="wind_speed"><swe:Quantity><swe:uom code="cm/s"/></swe:Quantity></swe:field>
                  <swe:field name="air_pressure"><swe:Quantity><swe:uom code="Pa"/></swe:Quantity></swe:field>
                  <swe:field name="sea_surface_temperature"><swe:Quantity/></swe:field>
                  <swe:field name="sea_surface_swell_wave_period"><swe:Quantity><swe:uom code="s"/></swe:Quantity></swe:field>
                  <swe:field name="calculation_method"><swe:Category/></swe:field>
                </swe:DataRecord></swe:elementType>
                <swe:encoding><swe:TextEncoding tokenSeparator="," blockSeparator=" "/></swe:encoding>
                <swe:values>\(values)</swe:values>
              </swe:DataArray></om:result>
            </om:Observation></om:member>
            """
        }
        let file = try directory.file(
            "members.xml",
            """
            <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:gml="http://www.opengis.net/gml" xmlns:swe="http://www.opengis.net/swe/1.0.1">
            \(member("41001", "2024-05-01T00:00:00Z,90,750,101325,21.5,12,Longuet-Higgins 2024-05-01T01:00:00Z,270,,,,,"))
            \(member("41002", "2024-05-01T00:00:00Z,0,1000,,,,"))
            </om:ObservationCollection>
            """
        )
        let result = try readAll(file)
        #expect(
            result.observations == [
                BuoyObservationRecord(
                    stationID: "41001", time: utc("2024-05-01T00:00:00Z"), meanWaveDirection: 270, windSpeed: 7.5,
                    waterTemperature: 21.5, pressure: 1013.25
                ),
                BuoyObservationRecord(stationID: "41001", time: utc("2024-05-01T01:00:00Z"), meanWaveDirection: 90),
                BuoyObservationRecord(stationID: "41002", time: utc("2024-05-01T00:00:00Z"), meanWaveDirection: 180, windSpeed: 10),
            ]
        )
        #expect(result.summary.ignoredValues == ["sea_surface_swell_wave_period": 1, "calculation_method": 1])
        #expect(result.stations.map(\.stationID) == ["41001", "41002"])
    }
}
