import CLibXML2
import Foundation
import LineupTestSupport

/// One row of an SOS `swe:values` block, as the import baseline reads it.
struct MinimalSOSRow {
    /// The station identifier inside the row's sensor URN (`urn:ioos:sensor:wmo:LNP01::wpm1`).
    var stationID: Substring
    /// Seconds since 1970-01-01 UTC.
    var time: Double
    /// The ten value columns in the order SOSDocumentWriter writes them; NaN for an empty token.
    var values: [Double]
}

/// The import benchmark's XML baseline: libxml2's SAX2 push parser with the least work that
/// still yields the rows of an SOS document written by `SOSDocumentWriter`: a start/end
/// callback that notices `swe:values`, a characters callback that cuts its text into lines, and
/// by-hand parsing of each line where libxml2 delivered it (numbers as exact integers over
/// powers of ten, as Lineup's reader does, `strtod` beyond 15 digits; a fixed-layout ISO-8601
/// time). It knows
/// the writer's column order instead of reading the field declarations, checks no bounds and
/// converts no units (the document is in SI already): the floor of what any importer must do.
final class MinimalSOSParser {
    /// libxml2's chunk size as Lineup's reader uses it.
    private static let chunkSize = 64 * 1024

    private let onRow: (MinimalSOSRow) throws -> Void
    private var inValues = false
    private var line: [UInt8] = []
    private var row = MinimalSOSRow(stationID: "", time: 0, values: Array(repeating: .nan, count: 10))
    private var lastSensor: [UInt8] = []
    private var lastStation: Substring = ""
    private(set) var failure: (any Error)?
    private(set) var rowCount = 0

    init(onRow: @escaping (MinimalSOSRow) throws -> Void) {
        self.onRow = onRow
    }

    func parse(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchError(.verification, "\(path): cannot open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = minimalStart
        sax.endElementNs = minimalEnd
        sax.characters = minimalCharacters
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let context = xmlCreatePushParserCtxt(&sax, me, nil, 0, path) else {
            throw BenchError(.verification, "\(path): libxml2 could not create a parser")
        }
        defer { xmlFreeParserCtxt(context) }
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        let chunk = UnsafeMutablePointer<CChar>.allocate(capacity: Self.chunkSize)
        defer { chunk.deallocate() }
        while true {
            let count = read(descriptor, chunk, Self.chunkSize)
            guard count >= 0 else { throw BenchError(.verification, "\(path): read failed") }
            let code = xmlParseChunk(context, chunk, Int32(count), count == 0 ? 1 : 0)
            if let failure { throw failure }
            guard code == 0 else { throw BenchError(.verification, "\(path): libxml2 error \(code) after \(rowCount) rows") }
            if count == 0 { break }
        }
        guard context.pointee.wellFormed != 0 else { throw BenchError(.verification, "\(path) is not well-formed") }
    }

    fileprivate func start(_ localName: UnsafePointer<UInt8>) {
        if strcmp(UnsafeRawPointer(localName).assumingMemoryBound(to: CChar.self), "values") == 0 {
            inValues = true
            line.removeAll(keepingCapacity: true)
        }
    }

    fileprivate func end(_ localName: UnsafePointer<UInt8>) {
        if inValues, strcmp(UnsafeRawPointer(localName).assumingMemoryBound(to: CChar.self), "values") == 0 {
            inValues = false
            if !line.isEmpty { finishLine() }
        }
    }

    fileprivate func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard inValues, failure == nil, let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count && failure == nil {
            guard let found = memchr(base + start, 0x0A, bytes.count - start) else {
                line.append(contentsOf: UnsafeBufferPointer(start: base + start, count: bytes.count - start))
                return
            }
            let newline = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            if line.isEmpty {
                // The whole line is in libxml2's buffer, ended by the newline: parse it there.
                parseLine(base + start, count: newline - start)
            } else {
                line.append(contentsOf: UnsafeBufferPointer(start: base + start, count: newline - start))
                finishLine()
            }
            start = newline + 1
        }
    }

    /// Parses the rest of a line that libxml2 delivered in pieces.
    private func finishLine() {
        defer { line.removeAll(keepingCapacity: true) }
        let count = line.count
        line.append(0x0A)
        line.withUnsafeBufferPointer { parseLine($0.baseAddress!, count: count) }
    }

    /// Parses `sensor,time,v1,…,v10` at `bytes` (followed by a newline, so that every field
    /// ends at a byte that is not part of a number) and hands the row over.
    private func parseLine(_ bytes: UnsafePointer<UInt8>, count: Int) {
        guard (0..<count).contains(where: { bytes[$0] > 0x20 }) else { return }
        var field = 0
        var start = 0
        while start <= count && failure == nil {
            let end: Int
            if let comma = memchr(bytes + start, 0x2C, count - start) {
                end = UnsafeRawPointer(comma).assumingMemoryBound(to: UInt8.self) - bytes
            } else {
                end = count
            }
            take(field: field, bytes + start, count: end - start)
            field += 1
            start = end + 1
        }
        if field != 12 && failure == nil {
            failure = BenchError(.verification, "a row with \(field) fields instead of 12")
        }
        guard failure == nil else { return }
        do {
            try onRow(row)
            rowCount += 1
        } catch {
            failure = error
        }
    }

    private func take(field: Int, _ token: UnsafePointer<UInt8>, count: Int) {
        switch field {
        case 0:
            row.stationID = station(of: UnsafeBufferPointer(start: token, count: count))
        case 1:
            guard let seconds = Self.seconds(UnsafeBufferPointer(start: token, count: count)) else {
                failure = BenchError(.verification, "a row with an unreadable time")
                return
            }
            row.time = seconds
        case 2..<12:
            row.values[field - 2] = count == 0 ? .nan : Self.decimal(token, count: count)
        default:
            return
        }
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A decimal token: up to 15 digits as an exact integer over an exact power of ten (which
    /// IEEE division rounds correctly, so it equals strtod's result), strtod for anything else.
    private static func decimal(_ token: UnsafePointer<UInt8>, count: Int) -> Double {
        var index = 0
        let negative = token[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while index < count {
            let byte = token[index]
            if byte >= 0x30 && byte <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else {
                digits = 99
                break
            }
            index += 1
        }
        guard digits <= 15 else {
            return strtod(UnsafeRawPointer(token).assumingMemoryBound(to: CChar.self), nil)
        }
        let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    /// `LNP01` of `urn:ioos:sensor:wmo:LNP01::wpm1`, cached while the sensor stays the same.
    private func station(of token: UnsafeBufferPointer<UInt8>) -> Substring {
        if token.count == lastSensor.count, lastSensor.withUnsafeBytes({ memcmp($0.baseAddress!, token.baseAddress!, token.count) }) == 0 {
            return lastStation
        }
        lastSensor = Array(token)
        let text = String(decoding: token, as: UTF8.self)
        let afterPrefix = text.range(of: "wmo:").map { text[$0.upperBound...] } ?? text[...]
        lastStation = afterPrefix.range(of: "::").map { afterPrefix[..<$0.lowerBound] } ?? afterPrefix
        return lastStation
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` as seconds since 1970 (H. Hinnant's days-from-civil).
    private static func seconds(_ token: UnsafeBufferPointer<UInt8>) -> Double? {
        guard token.count >= 20 else { return nil }
        func number(_ offset: Int, _ count: Int) -> Int {
            var value = 0
            for index in offset..<(offset + count) { value = value * 10 + Int(token[index] &- 0x30) }
            return value
        }
        let year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2))
    }
}

@inline(__always)
private func parser(_ userData: UnsafeMutableRawPointer?) -> MinimalSOSParser {
    Unmanaged<MinimalSOSParser>.fromOpaque(userData!).takeUnretainedValue()
}

private let minimalStart: startElementNsSAX2Func = { userData, localName, _, _, _, _, _, _, _ in
    guard let localName else { return }
    parser(userData).start(localName)
}

private let minimalEnd: endElementNsSAX2Func = { userData, localName, _, _ in
    guard let localName else { return }
    parser(userData).end(localName)
}

private let minimalCharacters: charactersSAXFunc = { userData, bytes, length in
    guard let bytes, length > 0 else { return }
    parser(userData).characters(UnsafeBufferPointer(start: bytes, count: Int(length)))
}
