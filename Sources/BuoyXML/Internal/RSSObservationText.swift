import Foundation

/// The pieces of an NDBC `latest_obs` RSS item, read from their text.
///
/// The description holds HTML lines such as `<strong>Wind Speed:</strong> 9.7 knots<br />`,
/// in any order, a line left out when its value is missing (a wave-only buoy has no wind
/// lines, a buoy without a spectral sensor no period). The first line, a label without a
/// colon, is the time. Values are imperial, some with the metric value in parentheses:
/// `30.16 in (1021.2 mb)`, `73.2&#176;F (22.9&#176;C)`.
///
/// The generations NDBC has published differ in the time line and the guid:
///
/// | generation | time line | guid |
/// |---|---|---|
/// | about 2012 | `October 4, 2012 1700 UTC` (24-hour, stations outside US zones) or `September 18, 2014 6:50 am EDT` | `http://www.ndbc.noaa.gov/station_page.php?station=62303&ts=1349370000` (Unix time) |
/// | since about 2016 | `February 27, 2022 5:20 am CST` (12-hour, US zone abbreviation), or 24-hour with `UTC`/`GMT` | `NDBC-42002-20220227112000` (UTC) |
///
/// Both guid forms carry the observation time in UTC; a station id may be any WMO number
/// (`62303` off Wales, `51201` off Hawaii) or a C-MAN call sign (`LONF1`).
enum RSSObservationText {
    struct Line: Equatable {
        /// The label without its colon (`Wind Speed`), or `nil` for a line without one.
        var label: String?
        /// The text after the label, tags removed and entities decoded.
        var value: String
        /// The UTF-8 offset, in the description, of the line's first byte that is not white
        /// space: where a report points to.
        var offset: Int = 0
    }

    struct Measurement: Equatable {
        var value: Double
        var fractionDigits: Int
        var unit: String
    }

    enum Reading: Equatable {
        case value(Double)
        case rejected(String)
    }

    /// The lines of a description. A bold text without a colon (the date line) has a `nil`
    /// label and the bold text as its value.
    static func lines(ofDescription html: String) -> [Line] {
        let bytes = Array(html.utf8)
        var lines: [Line] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), matches(bytes, index + 1, "br"),
                index + 3 >= bytes.count || !isLetter(bytes[index + 3])
            {
                if let line = line(bytes[start..<index]) { lines.append(line) }
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ">") { end += 1 }
                index = end + 1
                start = index
                continue
            }
            index += 1
        }
        if start < bytes.count, let line = line(bytes[start..<bytes.count]) { lines.append(line) }
        return lines
    }

    private static func line(_ segment: ArraySlice<UInt8>) -> Line? {
        var line = lineContent(segment)
        line?.offset = segment.firstIndex(where: { !isWhiteSpace($0) }) ?? segment.startIndex
        return line
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private static func lineContent(_ segment: ArraySlice<UInt8>) -> Line? {
        let bytes = Array(segment)
        if let open = find(bytes, "<strong", from: 0),
            let openEnd = bytes[open...].firstIndex(of: UInt8(ascii: ">")),
            let close = find(bytes, "</strong", from: openEnd)
        {
            let bold = clean(Array(bytes[(openEnd + 1)..<close]))
            let afterClose = bytes[close...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.count
            let rest = clean(Array(bytes[afterClose...]))
            if bold.hasSuffix(":") {
                return Line(label: String(bold.dropLast()).trimmingSpaces(), value: rest)
            }
            let text = rest.isEmpty ? bold : bold + " " + rest
            return text.isEmpty ? nil : Line(label: nil, value: text)
        }
        let text = clean(bytes)
        guard !text.isEmpty else { return nil }
        // A plain `Label: value` line; a colon after digits (`5:20 am`) is no label.
        if let colon = text.firstIndex(of: ":") {
            let label = text[..<colon]
            if !label.isEmpty, label.allSatisfy({ $0.isLetter || $0 == " " }) {
                return Line(label: String(label).trimmingSpaces(), value: String(text[text.index(after: colon)...]).trimmingSpaces())
            }
        }
        return Line(label: nil, value: text)
    }

    /// Text without tags, with entities decoded and white space collapsed.
    private static func clean(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        var inTag = false
        for byte in bytes {
            if inTag {
                if byte == UInt8(ascii: ">") { inTag = false }
            } else if byte == UInt8(ascii: "<") {
                inTag = true
            } else {
                text.append(byte)
            }
        }
        let decoded = decodeEntities(String(decoding: text, as: UTF8.self))
        return decoded.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Decodes character references and the HTML entities NDBC uses (`&deg;`, `&nbsp;`, …).
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(10).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmpersand...]
                continue
            }
            let name = rest[afterAmpersand..<semicolon]
            if let scalar = entity(String(name)) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[ampersand...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        result += rest
        return result
    }

    private static func entity(_ name: String) -> Unicode.Scalar? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
        }
        switch name {
        case "deg": return "\u{B0}"
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return " "
        default: return nil
        }
    }

    /// Every number of `text` with the unit word that follows it: `30.16 in (1021.2 mb)` gives
    /// `30.16 in` and `1021.2 mb`; `NNW (340°)` gives `340 °`.
    static func measurements(in text: String) -> [Measurement] {
        let scalars = Array(text.unicodeScalars)
        var found: [Measurement] = []
        var index = 0
        func isDigit(_ offset: Int) -> Bool {
            offset < scalars.count && ("0"..."9").contains(scalars[offset])
        }
        while index < scalars.count {
            let scalar = scalars[index]
            let startsNumber =
                isDigit(index)
                || ((scalar == "-" || scalar == "+") && (isDigit(index + 1) || (index + 2 < scalars.count && scalars[index + 1] == "." && isDigit(index + 2))))
                || (scalar == "." && isDigit(index + 1))
            guard startsNumber, index == 0 || !isWordScalar(scalars[index - 1]) else {
                index += 1
                continue
            }
            var number = String(scalar)
            var fractionDigits = 0
            var seenPoint = scalar == "."
            index += 1
            while index < scalars.count {
                let next = scalars[index]
                if ("0"..."9").contains(next) {
                    if seenPoint { fractionDigits += 1 }
                } else if next == ".", !seenPoint, isDigit(index + 1) {
                    seenPoint = true
                } else {
                    break
                }
                number.unicodeScalars.append(next)
                index += 1
            }
            while index < scalars.count, scalars[index] == " " { index += 1 }
            var unit = ""
            while index < scalars.count, isWordScalar(scalars[index]) || scalars[index] == "\u{B0}" || scalars[index] == "/" {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            if let value = Double(number) {
                found.append(Measurement(value: value, fractionDigits: fractionDigits, unit: unit))
            }
        }
        return found
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
    }

    /// The value of `property` a line states, in the property's unit. Of several renderings
    /// (`30.16 in (1021.2 mb)`), the one with the finest resolution wins: 0.1 mb is finer than
    /// 0.01 in (0.34 hPa), 0.1 °F is finer than 0.1 °C; on a tie the first one.
    static func reading(of property: BuoyObservationProperty, in text: String) -> Reading {
        let candidates = measurements(in: text)
        guard !candidates.isEmpty else {
            return .rejected(BuoyRejection.notANumber(property))
        }
        var best: (value: Double, resolution: Double, unit: BuoyUnit)?
        for candidate in candidates {
            guard let unit = BuoyUnit(spelling: candidate.unit), unit.dimension == property.unit.dimension else { continue }
            var resolution = unit.modelUnitsPerUnit
            for _ in 0..<candidate.fractionDigits { resolution /= 10 }
            if best == nil || resolution < best!.resolution {
                best = (candidate.value, resolution, unit)
            }
        }
        guard let best else {
            return .rejected(BuoyRejection.unsupportedUnit(property))
        }
        return .value(best.unit.toModelUnit(best.value))
    }

    /// `26.055N 93.646W` as latitude and longitude.
    static func location(_ text: String) -> (latitude: Double, longitude: Double)? {
        var latitude: Double?
        var longitude: Double?
        for measurement in measurements(in: text) {
            switch measurement.unit.uppercased() {
            case "N": latitude = measurement.value
            case "S": latitude = -measurement.value
            case "E": longitude = measurement.value
            case "W": longitude = -measurement.value
            default: break
            }
        }
        guard let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return nil
        }
        return (latitude, longitude)
    }

    /// `26.055 -93.646` (a `georss:point`) as latitude and longitude.
    static func point(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(whereSeparator: { $0.isWhitespace || $0 == "," }).compactMap { Double($0) }
        guard parts.count == 2, (-90...90).contains(parts[0]), (-180...180).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// The station and UTC time of an NDBC guid, of either generation:
    /// `NDBC-42002-20220227112000` (UTC), or
    /// `…/station_page.php?station=62303&ts=1349370000` (Unix time). The time is `nil` when the
    /// guid names a station but its time cannot be read.
    static func guid(_ text: String) -> (station: String, time: Date?)? {
        if text.range(of: "station=", options: .caseInsensitive) != nil {
            return stationPageGuid(text)
        }
        let parts = text.trimmingSpaces().split(separator: "-")
        guard parts.count >= 3, parts[0].uppercased() == "NDBC",
            let station = StationID.normalized(parts[1..<(parts.count - 1)].joined(separator: "-"))
        else { return nil }
        let stamp = Array(parts[parts.count - 1].utf8)
        let time = stamp.withUnsafeBufferPointer { bytes -> Date? in
            guard bytes.count == 14 || bytes.count == 12,
                let year = ByteParsing.digits(bytes, 0, 4), let month = ByteParsing.digits(bytes, 4, 2),
                let day = ByteParsing.digits(bytes, 6, 2), let hour = ByteParsing.digits(bytes, 8, 2),
                let minute = ByteParsing.digits(bytes, 10, 2)
            else { return nil }
            let second = bytes.count == 14 ? ByteParsing.digits(bytes, 12, 2) : 0
            guard let second,
                let seconds = UTCTimestamp.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            else { return nil }
            return Date(timeIntervalSince1970: Double(seconds))
        }
        return (station, time)
    }

    /// `…/station_page.php?station=62303&ts=1349370000`: the station, and the Unix time of `ts`.
    private static func stationPageGuid(_ text: String) -> (station: String, time: Date?)? {
        guard let station = linkStation(text) else { return nil }
        var time: Date?
        if let range = text.range(of: "ts=", options: .caseInsensitive),
            range.lowerBound == text.startIndex || "?&;".contains(text[text.index(before: range.lowerBound)])
        {
            let digits = text[range.upperBound...].prefix(while: { $0 != "&" && $0 != "#" && !$0.isWhitespace })
            // Ten digits cover 2001 to 2286; fewer or more is not an observation time.
            if digits.count == 10, let seconds = Int(digits) {
                time = Date(timeIntervalSince1970: Double(seconds))
            }
        }
        return (station, time)
    }

    /// The station of an item title (`Station 42002 - WEST GULF - Brownsville, TX`) and the
    /// name after it.
    static func titleStation(_ title: String) -> (station: String, name: String?)? {
        let trimmed = title.trimmingSpaces()
        guard trimmed.lowercased().hasPrefix("station ") else { return nil }
        let rest = trimmed.dropFirst("station ".count)
        let id = rest.prefix(while: { !$0.isWhitespace })
        guard let station = StationID.normalized(String(id)) else { return nil }
        var name: String?
        if let dash = rest.range(of: " - ") {
            name = String(rest[dash.upperBound...]).trimmingSpaces()
        }
        return (station, name?.isEmpty == false ? name : nil)
    }

    /// The station of a link (`…/station_page.php?station=42002`).
    static func linkStation(_ link: String) -> String? {
        guard let range = link.range(of: "station=", options: .caseInsensitive) else { return nil }
        let id = link[range.upperBound...].prefix(while: { $0 != "&" && $0 != "#" && !$0.isWhitespace })
        return StationID.normalized(String(id))
    }

    /// The station name of a channel title for that station:
    /// `NDBC - Station 42002 - WEST GULF - 207 NM East of Brownsville, TX Observations`.
    static func channelStationName(_ title: String, station: String) -> String? {
        var text = Substring(title.trimmingSpaces())
        let prefix = "NDBC - Station \(station) - "
        guard text.uppercased().hasPrefix(prefix.uppercased()) else { return nil }
        text = text.dropFirst(prefix.count)
        if text.hasSuffix(" Observations") {
            text = text.dropLast(" Observations".count)
        }
        let name = String(text).trimmingSpaces()
        return name.isEmpty ? nil : name
    }

    /// A date line, `February 27, 2022 5:20 am CST` or `October 4, 2012 1700 UTC`, as a UTC
    /// time, using the offset of the zone abbreviation NDBC writes (US zones, or UTC for
    /// stations outside them).
    static func localTime(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0) }
        guard words.count >= 5,
            let month = months.firstIndex(where: { words[0].lowercased().hasPrefix($0) }).map({ $0 + 1 }),
            let day = Int(words[1]), let year = Int(words[2])
        else { return nil }
        guard let clock = clockTime(words[3]) else { return nil }
        var hour = clock.hour
        let minute = clock.minute
        var zoneIndex = 4
        switch words[4].lowercased() {
        case "am":
            guard (1...12).contains(hour) else { return nil }
            if hour == 12 { hour = 0 }
            zoneIndex = 5
        case "pm":
            guard (1...12).contains(hour) else { return nil }
            if hour != 12 { hour += 12 }
            zoneIndex = 5
        default:
            break
        }
        guard zoneIndex < words.count, let offsetHours = zoneOffsets[words[zoneIndex].uppercased()],
            let local = UTCTimestamp.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: 0)
        else { return nil }
        return Date(timeIntervalSince1970: Double(local - offsetHours * 3600))
    }

    /// `5:20`, `17:00` or `1700` as hour and minute (the hour not yet checked against am/pm).
    private static func clockTime(_ word: String) -> (hour: Int, minute: Int)? {
        let clock = word.split(separator: ":", omittingEmptySubsequences: false)
        let hour: Int?
        let minute: Int?
        if clock.count == 2, (1...2).contains(clock[0].count), clock[1].count == 2 {
            hour = Int(clock[0])
            minute = Int(clock[1])
        } else if clock.count == 1, word.count == 4, word.allSatisfy(\.isASCII) {
            hour = Int(word.prefix(2))
            minute = Int(word.suffix(2))
        } else {
            return nil
        }
        guard let hour, let minute, (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return (hour, minute)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Offsets from UTC, in hours, of the zone abbreviations of NDBC's US stations.
    private static let zoneOffsets: [String: Int] = [
        "UTC": 0, "UT": 0, "GMT": 0, "Z": 0,
        "AST": -4, "ADT": -3,
        "EST": -5, "EDT": -4,
        "CST": -6, "CDT": -5,
        "MST": -7, "MDT": -6,
        "PST": -8, "PDT": -7,
        "AKST": -9, "AKDT": -8,
        "HST": -10, "SST": -11,
        "CHST": 10,
    ]

    private static func matches(_ bytes: [UInt8], _ offset: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let expected = word.utf8Start
        for index in 0..<count where bytes[offset + index] | 0x20 != expected[index] {
            return false
        }
        return true
    }

    private static func find(_ bytes: [UInt8], _ word: StaticString, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") || bytes[index] == word.utf8Start[0] {
                if matches(bytes, index, word) { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
