// Differential libFuzzer target for the CSV writer: the input becomes a header and rows of
// every field kind (text of any bytes, integers, doubles of any bit pattern, dates in and out
// of range, NULLs); the writer writes them to a file, an independent RFC 4180 reader
// (RFC4180Reader, ISO8601Microseconds) reads the file back, and every field must come back as
// it went in: text byte for byte, quoted exactly when it must be, integers and doubles to the
// same value, dates to the microsecond, NULL apart from the empty string. A date the writer
// cannot write must fail its row alone, with `invalidValue`.

import Foundation
import FuzzSupport
import SurfJournal

private let destination = URL(fileURLWithPath: scratchPath("export.csv"))

/// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds since the Unix epoch: the years
/// the writer documents it can write.
private let writableUnixSeconds = -62_167_219_200.0..<253_402_300_800.0

@main
enum CSVFuzzer {
    static func main() { runFuzzer(fuzzCSV) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let header = (0...input.choice(6)).map { _ in input.text(maximumLength: 16) }
    var expectedRows: [[CSVField]] = []
    do {
        let writer = try CSVWriter(destination: destination, header: header)
        while !input.isAtEnd, expectedRows.count < 64 {
            let row = header.map { _ in field(from: &input) }
            do {
                try writer.writeRow(row)
                expectedRows.append(row)
            } catch let error as CSVWriterError where error.code == .invalidValue {
                expect(row.contains(where: isUnwritableDate), "row refused without an unwritable date: \(error)")
                expect(error.description.contains(destination.path), "the error does not name the file: \(error)")
            }
            expect(writer.rowCount == expectedRows.count, "rowCount \(writer.rowCount), rows written \(expectedRows.count)")
        }
        _ = try writer.finish()
    } catch {
        fatalError("the writer failed on a writable file: \(error)")
    }
    let bytes: [UInt8]
    do {
        bytes = Array(try Data(contentsOf: destination))
    } catch {
        fatalError("cannot read back \(destination.path): \(error)")
    }
    let records: [[RFC4180Reader.Field]]
    do {
        records = try RFC4180Reader.records(in: bytes)
    } catch {
        fatalError("the file is not RFC 4180: \(error)")
    }
    expect(records.count == expectedRows.count + 1, "\(records.count) records for \(expectedRows.count) rows and a header")
    check(records[0], against: header.map(CSVField.text))
    for (record, row) in zip(records.dropFirst(), expectedRows) {
        check(record, against: row)
    }
    return 0
}

private func field(from input: inout FuzzInput) -> CSVField {
    switch input.choice(7) {
    case 0: return .null
    case 1: return .text(input.text())
    case 2: return .integer(Int(input.int64()))
    case 3: return .double(input.double())
    // Any bit pattern as a date: mostly far outside the writable years, or a tiny interval.
    case 4: return .date(Date(timeIntervalSinceReferenceDate: input.double()))
    // Whole microseconds across ±12,700 years around 2001: both ends of the writable range.
    case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(input.int64() % 400_000_000_000_000_000) / 1e6))
    // Tenths of a microsecond: rounding to the microsecond, up into the next second or day.
    default: return .date(Date(timeIntervalSinceReferenceDate: Double(input.int64() % 4_000_000_000_000_000_000) / 1e7))
    }
}

/// The date rounded to the microsecond, in microseconds since the Unix epoch (as a Double, so
/// that no value overflows).
private func unixMicroseconds(_ date: Date) -> Double {
    (date.timeIntervalSinceReferenceDate * 1e6).rounded() + Date.timeIntervalBetween1970AndReferenceDate * 1e6
}

private func isUnwritableDate(_ field: CSVField) -> Bool {
    guard case .date(let date) = field else { return false }
    let microseconds = unixMicroseconds(date)
    return !(microseconds.isFinite && writableUnixSeconds.contains(microseconds / 1e6))
}

private func check(_ record: [RFC4180Reader.Field], against row: [CSVField]) {
    expect(record.count == row.count, "a record of \(record.count) fields for a row of \(row.count)")
    for (read, written) in zip(record, row) {
        let text = String(decoding: read.bytes, as: UTF8.self)
        switch written {
        case .null:
            expect(read == .init(bytes: [], isQuoted: false), "NULL read back as \(read)")
        case .text(let value):
            let mustQuote = value.isEmpty || value.utf8.contains { [0x2C, 0x22, 0x0D, 0x0A].contains($0) }
            expect(read.bytes == Array(value.utf8), "text \(value.debugDescription) read back as \(text.debugDescription)")
            expect(read.isQuoted == mustQuote, "text \(value.debugDescription) quoted: \(read.isQuoted)")
        case .integer(let value):
            expect(!read.isQuoted && Int(text) == value, "integer \(value) read back as \(text.debugDescription)")
        case .double(let value):
            guard !read.isQuoted, let parsed = Double(text) else { fatalError("double \(value) read back as \(text.debugDescription)") }
            expect(
                value.isNaN ? parsed.isNaN : parsed.bitPattern == value.bitPattern,
                "double \(value) (\(value.bitPattern)) read back as \(text.debugDescription)")
            if value.magnitude >= 1e-6, value.magnitude < 1e21 {
                expect(!text.contains("e"), "double \(value) in exponent notation: \(text)")
            }
        case .date(let value):
            let expected = unixMicroseconds(value)
            guard !read.isQuoted, let parsed = ISO8601Microseconds.parse(read.bytes) else {
                fatalError("date \(value.timeIntervalSinceReferenceDate) read back as \(text.debugDescription)")
            }
            expect(Double(parsed) == expected, "date \(value.timeIntervalSinceReferenceDate) read back as \(text), \(parsed) µs, expected \(expected)")
        }
    }
}
