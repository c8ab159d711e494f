public import BuoyXML
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes observations as an NDBC IOOS SOS GetObservation response
/// (`om:ObservationCollection`, O&M 1.0, SWE 1.0 `swe:DataStream`), streaming to a file.
///
/// The document has the structure and namespaces of NDBC's responses: one `om:member` per run
/// of consecutive records of one station, each with its station URN and position as constant
/// fields, then the columns `sensor_id`, `time` and ten CF quantities, the wave fields named
/// as in NDBC's `waves` offering (`sea_surface_wave_significant_height`,
/// `sea_surface_wave_peak_period`, `sea_surface_wave_mean_period`,
/// `sea_surface_wave_to_direction`, `sea_water_temperature`), followed by the `winds` fields
/// (`wind_from_direction`, `wind_speed`, `wind_speed_of_gust`), `air_temperature` and
/// `air_pressure_at_sea_level`. A missing value is an empty token. The mean wave direction is
/// written as the CF "to" direction (from + 180° mod 360°), as the field name requires.
///
/// Numbers are written in Swift's shortest round-trip form, so reading the file back gives
/// the same `Double`s (directions go through ±180°, which is exact for whole degrees).
///
/// The document goes to a temporary file beside `url`, renamed into place by ``close()``;
/// a writer dropped without ``close()`` removes it. A writer is used from one thread.
public final class SOSDocumentWriter {
    /// Where ``close()`` puts the document.
    public let url: URL
    /// Records written so far.
    public private(set) var observationCount = 0
    /// Bytes written so far (including those still buffered).
    public private(set) var byteCount = 0

    private let temporaryPath: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let stations: [String: BuoyStationRecord]
    private let samplingTimes: [String: ClosedRange<Date>]
    private var currentStation: String?
    private var sensorToken: [UInt8] = []
    private var closed = false

    private static let flushThreshold = 64 * 1024

    /// Creates the temporary file and writes the document's opening.
    ///
    /// - Parameters:
    ///   - stations: positions (and nothing else) of the stations, written as constant
    ///     location fields; a station not listed gets no location.
    ///   - samplingTimes: each station's first and last time, for `om:samplingTime`; without
    ///     one, the begin is the first record's time and the end is `unknown`.
    public init(url: URL, stations: [BuoyStationRecord] = [], samplingTimes: [String: ClosedRange<Date>] = [:]) throws {
        self.url = url
        let directory = url.deletingLastPathComponent().path
        temporaryPath = directory + "/." + url.lastPathComponent + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let number = errno
            throw FixtureWriteError(
                path: url.path, message: "cannot create a temporary file: \(String(cString: strerror(number)))",
                systemErrorNumber: number)
        }
        self.stations = Dictionary(stations.map { ($0.stationID, $0) }, uniquingKeysWith: { first, _ in first })
        self.samplingTimes = samplingTimes
        buffer.reserveCapacity(Self.flushThreshold + 4096)
        append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:gml="http://www.opengis.net/gml" \
            xmlns:swe="http://www.opengis.net/swe/1.0" xmlns:xlink="http://www.w3.org/1999/xlink" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.opengis.net/om/1.0 http://schemas.opengis.net/om/1.0.0/observation.xsd">
              <gml:metaDataProperty xlink:title="disclaimer">
                <gml:GenericMetaData>
                  <gml:description>Written by Lineup's SOSDocumentWriter.</gml:description>
                </gml:GenericMetaData>
              </gml:metaDataProperty>

            """
        )
    }

    deinit {
        if !closed {
            closeDescriptor(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends one record (a new `om:member` begins when its station differs from the last).
    public func write(_ record: BuoyObservationRecord) throws {
        precondition(!closed, "write after close")
        if record.stationID != currentStation {
            if currentStation != nil { endMember() }
            beginMember(station: record.stationID, firstTime: record.time)
        }
        buffer.append(contentsOf: sensorToken)
        buffer.append(UInt8(ascii: ","))
        UTCTimestamp.appendISO8601(record.time, to: &buffer)
        for property in Self.columns {
            buffer.append(UInt8(ascii: ","))
            guard var value = record[property] else { continue }
            if property == .meanWaveDirection {
                value = (value + 180).truncatingRemainder(dividingBy: 360)
            }
            appendNumber(value)
        }
        buffer.append(0x0A)
        observationCount += 1
        if buffer.count >= Self.flushThreshold {
            try flush()
        }
    }

    /// Ends the document, writes everything to disk and renames the file into place.
    public func close() throws {
        precondition(!closed, "close called twice")
        if currentStation != nil { endMember() }
        append("</om:ObservationCollection>\n")
        closed = true
        defer { closeDescriptor(descriptor) }
        do {
            try flush()
            guard fsync(descriptor) == 0 else { throw systemError("cannot sync the file") }
            guard rename(temporaryPath, url.path) == 0 else { throw systemError("cannot move the file into place") }
        } catch {
            unlink(temporaryPath)
            throw error
        }
    }

    /// Writes `records` to a new document at `url`; returns the number of bytes written.
    @discardableResult
    public static func write(
        _ records: some Sequence<BuoyObservationRecord>,
        stations: [BuoyStationRecord] = [],
        samplingTimes: [String: ClosedRange<Date>] = [:],
        to url: URL
    ) throws -> Int {
        let writer = try SOSDocumentWriter(url: url, stations: stations, samplingTimes: samplingTimes)
        for record in records {
            try writer.write(record)
        }
        try writer.close()
        return writer.byteCount
    }

    /// Writes a sample sequence, with its stations and sampling times, to a new document at
    /// `url`; returns the number of bytes written.
    @discardableResult
    public static func write(_ samples: SampleObservations, to url: URL) throws -> Int {
        try write(samples, stations: samples.stations, samplingTimes: samples.samplingTimes, to: url)
    }

    /// The value columns, in order, with their SOS field names and units.
    private static let columns: [BuoyObservationProperty] = [
        .waveHeight, .dominantPeriod, .averagePeriod, .meanWaveDirection, .waterTemperature,
        .windDirection, .windSpeed, .windGust, .airTemperature, .pressure,
    ]

    private static func fieldName(_ property: BuoyObservationProperty) -> String {
        switch property {
        case .waveHeight: "sea_surface_wave_significant_height"
        case .dominantPeriod: "sea_surface_wave_peak_period"
        case .averagePeriod: "sea_surface_wave_mean_period"
        case .meanWaveDirection: "sea_surface_wave_to_direction"
        case .waterTemperature: "sea_water_temperature"
        case .windDirection: "wind_from_direction"
        case .windSpeed: "wind_speed"
        case .windGust: "wind_speed_of_gust"
        case .airTemperature: "air_temperature"
        case .pressure: "air_pressure_at_sea_level"
        }
    }

    private func beginMember(station: String, firstTime: Date) {
        currentStation = station
        let id = Self.escaped(station)
        sensorToken = Array("urn:ioos:sensor:wmo:\(id)::wpm1".utf8)
        let position = stations[station].flatMap { record -> (Double, Double)? in
            guard let latitude = record.latitude, let longitude = record.longitude else { return nil }
            return (latitude, longitude)
        }
        let begin = UTCTimestamp.iso8601String(samplingTimes[station]?.lowerBound ?? firstTime)
        let end = samplingTimes[station].map {
            "<gml:endPosition>\(UTCTimestamp.iso8601String($0.upperBound))</gml:endPosition>"
        } ?? "<gml:endPosition indeterminatePosition=\"unknown\"/>"
        var text = """
              <om:member>
                <om:Observation>
                  <gml:description>waves observations at \(id)</gml:description>
                  <gml:name>urn:ioos:station:wmo:\(id)</gml:name>

            """
        if let (latitude, longitude) = position {
            text += """
                      <gml:boundedBy>
                        <gml:Envelope srsName="urn:ogc:def:crs:epsg::4326">
                          <gml:lowerCorner>\(latitude) \(longitude)</gml:lowerCorner>
                          <gml:upperCorner>\(latitude) \(longitude)</gml:upperCorner>
                        </gml:Envelope>
                      </gml:boundedBy>

                """
        }
        text += """
                  <om:samplingTime>
                    <gml:TimePeriod>
                      <gml:beginPosition>\(begin)</gml:beginPosition>
                      \(end)
                    </gml:TimePeriod>
                  </om:samplingTime>
                  <om:procedure/>
                  <om:observedProperty xlink:href="http://mmisw.org/ont/cf/parameter/waves"/>
                  <om:featureOfInterest>
                    <gml:FeatureCollection>
                      <gml:metaDataProperty>
                        <gml:name codeSpace="http://cf-pcmdi.llnl.gov/documents/cf-conventions/1.6/cf-conventions.html#discrete-sampling-geometries">timeSeries</gml:name>
                      </gml:metaDataProperty>

            """
        if let (latitude, longitude) = position {
            text += """
                          <gml:location>
                            <gml:Point srsName="http://www.opengis.net/def/crs/EPSG/0/4326">
                              <gml:pos>\(latitude) \(longitude)</gml:pos>
                            </gml:Point>
                          </gml:location>

                """
        }
        text += """
                    </gml:FeatureCollection>
                  </om:featureOfInterest>
                  <om:result>
                    <swe:DataStream definition="timeSeries">
                      <swe:field name="station_id">
                        <swe:Text definition="http://fixme.vocab/station">
                          <swe:value>urn:ioos:station:wmo:\(id)</swe:value>
                        </swe:Text>
                      </swe:field>
                      <swe:field name="sensor_id">
                        <swe:Text definition="http://fixme.vocab/sensor"/>
                      </swe:field>
                      <swe:field name="time">
                        <swe:Time definition="http://www.opengis.net/def/property/OGC/0/SamplingTime">
                          <swe:uom xlink:href="http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"/>
                        </swe:Time>
                      </swe:field>

            """
        if let (latitude, longitude) = position {
            text += """
                          <swe:field name="location">
                            <swe:Vector definition="http://www.opengis.net/def/property/OGC/0/PlatformLocation" referenceFrame="http://www.opengis.net/def/crs/EPSG/0/4979">
                              <swe:coordinate name="lat">
                                <swe:Quantity definition="http://mmisw.org/ont/cf/parameter/latitude" axisID="Lat">
                                  <swe:uom code="deg"/>
                                  <swe:value>\(latitude)</swe:value>
                                </swe:Quantity>
                              </swe:coordinate>
                              <swe:coordinate name="lon">
                                <swe:Quantity definition="http://mmisw.org/ont/cf/parameter/longitude" axisID="Long">
                                  <swe:uom code="deg"/>
                                  <swe:value>\(longitude)</swe:value>
                                </swe:Quantity>
                              </swe:coordinate>
                              <swe:coordinate name="z">
                                <swe:Quantity definition="http://mmisw.org/ont/cf/parameter/altitude" axisID="h">
                                  <swe:uom code="m"/>
                                  <swe:value>0</swe:value>
                                </swe:Quantity>
                              </swe:coordinate>
                            </swe:Vector>
                          </swe:field>

                """
        }
        for property in Self.columns {
            let name = Self.fieldName(property)
            text += """
                          <swe:field name="\(name)">
                            <swe:Quantity definition="http://mmisw.org/ont/cf/parameter/\(name)">
                              <swe:uom code="\(property.unit.symbol)"/>
                            </swe:Quantity>
                          </swe:field>

                """
        }
        text += """
                      <swe:encoding>
                        <swe:TextEncoding decimalSeparator="." tokenSeparator="," blockSeparator="\\n"/>
                      </swe:encoding>
                      <swe:values>
            """
        append(text)
    }

    private func endMember() {
        append(
            """
            </swe:values>
                    </swe:DataStream>
                  </om:result>
                </om:Observation>
              </om:member>

            """
        )
        currentStation = nil
    }

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private func appendNumber(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 {
            // Whole numbers (periods, directions) without the ".0".
            var integer = Int(value)
            if integer == 0 {
                buffer.append(UInt8(ascii: "0"))
                return
            }
            if integer < 0 {
                buffer.append(UInt8(ascii: "-"))
                integer = -integer
            }
            var digits: [UInt8] = []
            while integer > 0 {
                digits.append(UInt8(ascii: "0") + UInt8(integer % 10))
                integer /= 10
            }
            buffer.append(contentsOf: digits.reversed())
            return
        }
        var text = value.description
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    private func flush() throws {
        var written = 0
        try buffer.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = writeDescriptor(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw systemError("cannot write the file")
                }
                written += result
            }
        }
        byteCount += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    private func systemError(_ message: String) -> FixtureWriteError {
        let number = errno
        return FixtureWriteError(
            path: url.path, message: "\(message): \(String(cString: strerror(number)))", systemErrorNumber: number)
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}

@available(*, unavailable)
extension SOSDocumentWriter: Sendable {}

// The C calls under names that the writer's own `close()` and `write(_:)` do not hide.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
