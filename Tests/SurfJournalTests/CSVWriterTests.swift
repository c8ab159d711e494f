import Foundation
import SurfJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory, removed when the value is released.
private final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("CSVWriterTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    var names: [String] {
        get throws { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
    }
}

/// Writes `rows` under `header` through a CSVWriter and returns the finished file's text.
private func csv(header: [String], _ rows: [[CSVField]]) throws -> String {
    let directory = try ScratchDirectory()
    let destination = directory.file("out.csv")
    let writer = try CSVWriter(destination: destination, header: header)
    for row in rows {
        try writer.writeRow(row)
    }
    let result = try writer.finish()
    let data = try Data(contentsOf: destination)
    #expect(result.rows == rows.count)
    #expect(result.bytes == data.count)
    return String(decoding: data, as: UTF8.self)
}

/// One field as the writer formats it, without the header and the line ending.
private func formatted(_ field: CSVField) throws -> String {
    let text = try csv(header: ["x"], [[field]])
    // Bytes, not Characters: "\r\n" is a single Character.
    let bytes = Array(text.utf8)
    try #require(bytes.starts(with: Array("x\r\n".utf8)) && bytes.suffix(2) == [0x0D, 0x0A])
    return String(decoding: bytes.dropFirst(3).dropLast(2), as: UTF8.self)
}

/// A strict RFC 4180 reader: CRLF between records, quotes only around whole fields.
/// Gives nil for an empty unquoted field and "" for `""`.
private struct StrictCSVParser {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ data: Data) throws -> [[String?]] {
        let bytes = [UInt8](data)
        let (quote, comma, cr, lf): (UInt8, UInt8, UInt8, UInt8) = (0x22, 0x2C, 0x0D, 0x0A)
        var records: [[String?]] = []
        var record: [String?] = []
        var index = 0
        while index < bytes.count {
            var field: [UInt8] = []
            var quoted = false
            if bytes[index] == quote {
                quoted = true
                index += 1
                while true {
                    guard index < bytes.count else { throw Malformed(description: "unterminated quoted field") }
                    if bytes[index] == quote {
                        if index + 1 < bytes.count, bytes[index + 1] == quote {
                            field.append(quote)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.append(bytes[index])
                    index += 1
                }
            } else {
                while index < bytes.count, bytes[index] != comma, bytes[index] != cr {
                    guard bytes[index] != quote, bytes[index] != lf else {
                        throw Malformed(description: "quote or bare LF in an unquoted field at byte \(index)")
                    }
                    field.append(bytes[index])
                    index += 1
                }
            }
            record.append(quoted || !field.isEmpty ? String(decoding: field, as: UTF8.self) : nil)
            if index < bytes.count, bytes[index] == comma {
                index += 1
                if index == bytes.count { record.append(nil) }
            } else if index + 1 < bytes.count, bytes[index] == cr, bytes[index + 1] == lf {
                index += 2
                records.append(record)
                record = []
            } else {
                throw Malformed(description: "expected a comma or CRLF at byte \(index)")
            }
        }
        guard record.isEmpty else { throw Malformed(description: "the last record lacks its CRLF") }
        return records
    }
}

@Suite("CSVWriter")
struct CSVWriterTests {
    // MARK: - Format

    @Test("quotes fields with a comma, quote, CR or LF, and tells an empty string from nil")
    func quoting() throws {
        let text = try csv(header: ["name", "a,b", "say \"x\""], [
            [.text("plain"), .text("a,b"), .text("say \"hi\"")],
            [.text("line1\nline2"), .text("cr\rhere"), .text("crlf\r\nend")],
            [.text(""), .null, .text(" spaced ")],
            [.text("naïve – ü"), .text("\""), .text("'single'; tab\t")],
        ])
        #expect(text == #"""
            name,"a,b","say ""x"""\#r
            plain,"a,b","say ""hi"""\#r
            "line1
            line2","cr\#rhere","crlf\#r
            end"\#r
            "",, spaced \#r
            naïve – ü,"""",'single'; tab\#t\#r

            """#)
        #expect(Array(text.utf8.suffix(2)) == [0x0D, 0x0A])
    }

    @Test("integers are plain decimal digits")
    func integers() throws {
        let text = try csv(header: ["n"], [[.integer(0)], [.integer(-1)], [.integer(42)], [.integer(.max)], [.integer(.min)]])
        #expect(text == "n\r\n0\r\n-1\r\n42\r\n9223372036854775807\r\n-9223372036854775808\r\n")
    }

    @Test(
        "doubles are shortest round-trip digits, plain decimal between 1e-6 and 1e21",
        arguments: [
            (0.1, "0.1"), (3, "3.0"), (-2.5, "-2.5"), (0.30000000000000004, "0.30000000000000004"),
            (0, "0.0"), (-0.0, "-0.0"), (1e-4, "0.0001"), (1e-5, "0.00001"), (-2.5e-5, "-0.000025"),
            (1.5e-6, "0.0000015"), (1e-6, "0.000001"), (9.99e-7, "9.99e-07"), (.leastNonzeroMagnitude, "5e-324"),
            (123_456_789.125, "123456789.125"), (9_007_199_254_740_992, "9007199254740992.0"),
            (1e16, "10000000000000000.0"), (-1.2345678901234568e20, "-123456789012345680000.0"),
            (1e21, "1e+21"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (.infinity, "inf"), (-.infinity, "-inf"),
        ] as [(Double, String)]
    )
    func doubles(value: Double, expected: String) throws {
        let text = try formatted(.double(value))
        #expect(text == expected)
        let parsed = try #require(Double(text))
        #expect(parsed == value && parsed.sign == value.sign)
    }

    @Test("NaN is written nan")
    func notANumber() throws {
        #expect(try formatted(.double(.nan)) == "nan")
    }

    @Test(
        "dates are ISO 8601 UTC with a fraction only when non-zero",
        arguments: [
            (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00Z"),
            (Date(timeIntervalSince1970: 0.5), "1970-01-01T00:00:00.5Z"),
            (Date(timeIntervalSince1970: 0.000_001), "1970-01-01T00:00:00.000001Z"),
            (Date(timeIntervalSince1970: 0.000_000_4), "1970-01-01T00:00:00Z"),
            (Date(timeIntervalSince1970: 59.999_999_6), "1970-01-01T00:01:00Z"),
            (Date(timeIntervalSince1970: -1), "1969-12-31T23:59:59Z"),
            (Date(timeIntervalSince1970: -0.25), "1969-12-31T23:59:59.75Z"),
            (Date(timeIntervalSince1970: -14_182_940), "1969-07-20T20:17:40Z"),  // Apollo 11 landing
            (Date(timeIntervalSince1970: -2_208_988_800), "1900-01-01T00:00:00Z"),
            (Date(timeIntervalSince1970: -2_203_891_200), "1900-03-01T00:00:00Z"),
            (Date(timeIntervalSince1970: 951_825_600), "2000-02-29T12:00:00Z"),
            (Date(timeIntervalSinceReferenceDate: 0), "2001-01-01T00:00:00Z"),
            (Date(timeIntervalSinceReferenceDate: 115_801_388.7906), "2004-09-02T07:03:08.7906Z"),
            (Date(timeIntervalSinceReferenceDate: 431_013_729.299_381_97), "2014-08-29T14:02:09.299382Z"),
            (Date(timeIntervalSince1970: 4_107_542_400), "2100-03-01T00:00:00Z"),
            (Date(timeIntervalSince1970: -62_167_219_200), "0000-01-01T00:00:00Z"),
            (Date(timeIntervalSince1970: 253_402_300_799), "9999-12-31T23:59:59Z"),
        ]
    )
    func dates(date: Date, expected: String) throws {
        #expect(try formatted(.date(date)) == expected)
    }

    @Test("whole-second dates from 1900 to 2100 match ISO8601DateFormatter")
    func datesMatchFoundation() throws {
        let reference = ISO8601DateFormatter()
        reference.timeZone = TimeZone(identifier: "UTC")
        // A fixed linear congruential sequence, so every run checks the same dates.
        var state: UInt64 = 0x5EED
        var rows: [[CSVField]] = []
        var expected = "d\r\n"
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = -2_208_988_800 + Int(state >> 33) % 6_311_433_600
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            rows.append([.date(date)])
            expected += reference.string(from: date) + "\r\n"
        }
        #expect(try csv(header: ["d"], rows) == expected)
    }

    @Test("a date outside years 0000-9999 is refused; the row is dropped and the writer goes on")
    func unrepresentableDate() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("dates.csv")
        let writer = try CSVWriter(destination: destination, header: ["id", "date"])
        try writer.writeRow([.integer(1), .date(Date(timeIntervalSince1970: 0))])

        for date in [Date(timeIntervalSince1970: 253_402_300_800), Date(timeIntervalSince1970: -62_167_219_201), Date(timeIntervalSinceReferenceDate: .nan)] {
            let error = try #require(throws: CSVWriterError.self) {
                try writer.writeRow([.integer(2), .date(date)])
            }
            #expect(error.code == .invalidValue)
            #expect(error.description == "CSV file \(destination.path): row 2, field 2: a date outside years 0000-9999")
        }
        try writer.writeRow([.integer(3), .null])
        #expect(try writer.finish() == (rows: 2, bytes: 37))
        #expect(try String(contentsOf: destination, encoding: .utf8) == "id,date\r\n1,1970-01-01T00:00:00Z\r\n3,\r\n")
    }

    @Test("optional conveniences write nil as an empty field")
    func optionalFields() throws {
        let none: String? = nil
        let text = try csv(header: ["a", "b", "c", "d", "e"], [
            [.text(none), .integer(Int?.none), .double(Double?.none), .date(Date?.none), .text(Optional("x"))],
        ])
        #expect(text == "a,b,c,d,e\r\n,,,,x\r\n")
    }

    @Test("what it writes reads back through a strict RFC 4180 parser")
    func roundTrip() throws {
        let rows: [[String?]] = [
            ["Rincon", "", nil, "3,5"],
            ["\"quoted\"", "multi\nline", "cr\rlf\r\n", ","],
            [nil, nil, nil, nil],
            ["ünïcödé 🌊", "  ", "\"", "a\"b\"\"c"],
        ]
        let text = try csv(header: ["location", "empty", "missing", "height"], rows.map { $0.map { CSVField.text($0) } })
        let parsed = try StrictCSVParser.parse(Data(text.utf8))
        #expect(parsed == [["location", "empty", "missing", "height"]] + rows)
    }

    @Test("many rows across many buffer flushes come out whole")
    func manyRows() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        let writer = try CSVWriter(destination: destination, header: ["id", "location", "height", "date"])
        let iso8601 = ISO8601DateFormatter()
        var expected = "id,location,height,date\r\n"
        for id in 0..<20_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(id) * 3_601)
            try writer.writeRow([.integer(id), .text("Spot, \(id % 7)"), .double(Double(id) / 8), .date(date)])
            expected += "\(id),\"Spot, \(id % 7)\",\(Double(id) / 8),\(iso8601.string(from: date))\r\n"
        }
        let result = try writer.finish()
        let data = try Data(contentsOf: destination)
        #expect(data.count > 4 * 64 * 1_024)
        #expect(result == (rows: 20_000, bytes: data.count))
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    // MARK: - Atomic replacement

    @Test("the old file stays intact until finish() renames the new one over it")
    func atomicReplace() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        try Data("old\r\n".utf8).write(to: destination)

        let writer = try CSVWriter(destination: destination, header: ["location"])
        try writer.writeRow([.text("Malibu")])
        try writer.writeRow([.text("Waikiki")])
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\r\n")
        let names = try directory.names
        #expect(names.count == 2)
        #expect(names.contains("journal.csv"))
        #expect(names.contains { $0.hasPrefix(".journal.csv.tmp-") })

        #expect(try writer.finish() == (rows: 2, bytes: 27))
        #expect(try String(contentsOf: destination, encoding: .utf8) == "location\r\nMalibu\r\nWaikiki\r\n")
        #expect(try directory.names == ["journal.csv"])
    }

    @Test("a cancelled writer leaves no temporary file and the old file untouched")
    func cancel() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        try Data("old\r\n".utf8).write(to: destination)

        let writer = try CSVWriter(destination: destination, header: ["location"])
        try writer.writeRow([.text("Malibu")])
        writer.cancel()
        writer.cancel()
        #expect(try directory.names == ["journal.csv"])
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\r\n")
    }

    @Test("a writer released without finish() removes its temporary file")
    func abandoned() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        do {
            let writer = try CSVWriter(destination: destination, header: ["location"])
            try writer.writeRow([.text("Malibu")])
            #expect(try directory.names.count == 1)
        }
        #expect(try directory.names == [])
    }

    // MARK: - Errors

    @Test("a missing destination directory is an error naming the path")
    func missingDirectory() throws {
        let directory = try ScratchDirectory()
        let destination = directory.url.appendingPathComponent("no/such/dir/journal.csv")
        let error = try #require(throws: CSVWriterError.self) {
            try CSVWriter(destination: destination, header: ["location"])
        }
        #expect(error.code == .cannotCreate)
        #expect(error.errorNumber == ENOENT)
        #expect(error.description == """
            CSV file \(destination.path): cannot create a temporary file in \
            \(destination.deletingLastPathComponent().path): No such file or directory (errno 2)
            """)
    }

    @Test("a destination that is a directory is an error naming it")
    func destinationIsDirectory() throws {
        let directory = try ScratchDirectory()
        let error = try #require(throws: CSVWriterError.self) {
            try CSVWriter(destination: directory.url, header: ["location"])
        }
        #expect(error.code == .cannotCreate)
        #expect(error.description == "CSV file \(directory.url.path): the destination is a directory")
        #expect(try directory.names == [])
    }

    /// Opens the real temporary file (so that its removal is checked) but writes go to
    /// /dev/full, where every write(2) fails with ENOSPC like a full disk.
    private static func openDiskFull(_ path: String) -> Int32 {
        let file = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard file >= 0 else { return -1 }
        close(file)
        return open("/dev/full", O_WRONLY)
    }

    @Test("a full disk while flushing is an error naming the file; the old file survives")
    func diskFullWhileWriting() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        try Data("old\r\n".utf8).write(to: destination)
        let writer = try CSVWriter(destination: destination, header: ["location"], bufferCapacity: 64, openFile: Self.openDiskFull)
        #expect(try directory.names.count == 2)

        var error: CSVWriterError?
        for _ in 0..<10 where error == nil {
            do {
                try writer.writeRow([.text("Margaret River")])
            } catch let thrown as CSVWriterError {
                error = thrown
            }
        }
        let failure = try #require(error)
        #expect(failure.code == .writeFailed)
        #expect(failure.errorNumber == ENOSPC)
        #expect(failure.description.hasPrefix("CSV file \(destination.path): cannot write to \(directory.url.path)/.journal.csv.tmp-"))
        #expect(failure.description.hasSuffix(": No space left on device (errno 28)"))
        #expect(try directory.names == ["journal.csv"])
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\r\n")

        // Every later call reports the same failure.
        let again = try #require(throws: CSVWriterError.self) { try writer.writeRow([.text("Rincon")]) }
        #expect(again.description == failure.description)
        #expect(throws: CSVWriterError.self) { try writer.finish() }
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\r\n")
    }

    @Test("a full disk at finish() is an error; nothing replaces the destination")
    func diskFullAtFinish() throws {
        let directory = try ScratchDirectory()
        let destination = directory.file("journal.csv")
        let writer = try CSVWriter(destination: destination, header: ["location"], bufferCapacity: 1 << 16, openFile: Self.openDiskFull)
        try writer.writeRow([.text("Malibu")])

        let error = try #require(throws: CSVWriterError.self) { try writer.finish() }
        #expect(error.code == .writeFailed)
        #expect(error.errorNumber == ENOSPC)
        #expect(error.path == destination.path)
        #expect(try directory.names == [])
    }
}
