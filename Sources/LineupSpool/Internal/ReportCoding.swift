import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How reports are written: pretty JSON with sorted keys (people read them), and dates as
/// ISO-8601 UTC with milliseconds whatever the encoder's date strategy, so that a report
/// reads the same whoever wrote it.
///
/// A report is written from its fields as a ``JSONValue`` object, by ``JSONTextWriter``; its
/// `Encodable` conformance encodes the same object, so any encoder sees the same fields.
enum ReportCoding {
    static func encode(_ fields: [String: JSONValue]) throws(SpoolError) -> Data {
        var text: [UInt8]
        do {
            text = try JSONTextWriter.text(of: .object(fields), style: .pretty)
        } catch {
            throw SpoolError(code: .invalidField, path: nil, message: "cannot encode report: \(error.message)")
        }
        text.append(UInt8(ascii: "\n"))
        return Data(text)
    }

    static func decode<Report: Decodable>(_ type: Report.Type, from data: Data, path: String?) throws(SpoolError) -> Report {
        do {
            return try JSONDecoder().decode(Report.self, from: data)
        } catch let error as DecodingError {
            var failure = JobFile.spoolError(describing: error, path: path)
            failure.message = failure.message.replacingOccurrences(of: "job file", with: "report")
            throw failure
        } catch {
            throw SpoolError(code: .malformedJobFile, path: path, message: "cannot decode report: \(error)")
        }
    }

    /// `2026-11-22T19:35:12.123Z`: rounded to the nearest millisecond (a formatter would
    /// truncate, turning the binary approximation of .123 into .122).
    static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds.quotientRoundingDown(by: 1000)
        return TimestampTemplate.report.text(seconds: seconds, fraction: Int(milliseconds - seconds * 1000))
    }

    /// Reads an ISO-8601 date, with or without fractional seconds. Whole seconds and
    /// milliseconds are combined as integers and divided once, so that a date written by
    /// ``string(from:)`` reads back as the same `Date` as `Date(timeIntervalSince1970:)`
    /// with the same decimal value.
    static func date(from text: String, codingPath: [any CodingKey]) throws -> Date {
        var whole = text
        var milliseconds: Int64 = 0
        if let dot = text.firstIndex(of: "."),
            let zone = text[text.index(after: dot)...].firstIndex(where: { !($0.isASCII && $0.isNumber) })
        {
            let digits = text[text.index(after: dot)..<zone]
            if !digits.isEmpty, let fraction = Double("0." + digits) {
                milliseconds = Int64((fraction * 1000).rounded())
                whole = String(text[..<dot] + text[zone...])
            }
        }
        guard let seconds = try? Date.ISO8601FormatStyle().parse(whole) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "expected an ISO-8601 date, found \"\(text)\"")
            )
        }
        let total = Int64(seconds.timeIntervalSince1970.rounded()) * 1000 + milliseconds
        return Date(timeIntervalSince1970: Double(total) / 1000)
    }
}

extension Int64 {
    fileprivate func quotientRoundingDown(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}

extension KeyedDecodingContainer {
    func decodeReportDate(forKey key: Key) throws -> Date {
        try ReportCoding.date(from: decode(String.self, forKey: key), codingPath: codingPath + [key])
    }

    func decodeReportDateIfPresent(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        return try ReportCoding.date(from: text, codingPath: codingPath + [key])
    }
}
