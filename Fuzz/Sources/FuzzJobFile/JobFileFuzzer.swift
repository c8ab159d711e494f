// libFuzzer target for the job file decoder, its validation, and PathPolicy. Each input is
// decoded as a job file; an accepted file must read as JSONDecoder reads it and keep its
// fields through encoding and decoding again, and a refused one must get a SpoolError that
// names it. Every string in the file, and the whole input as text, is then resolved as an
// input and as an output path in a sandbox of files, directories and symbolic links
// (PathSandbox), which must never hand out a path outside its directory.

import Foundation
import FuzzSupport
import LineupSpool

private let sandbox = PathSandbox(root: scratchPath("paths"))
private let jobPath = "new/fuzz.job.json"

@main
enum JobFileFuzzer {
    static func main() { runFuzzer(fuzzJobFile) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJobFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputData(data, size)
    do throws(SpoolError) {
        let job = try JobFile(data: bytes, path: jobPath)
        checkAccepted(job)
        checkReadAsJSONDecoderReads(job, from: bytes)
        for string in strings(in: .object(job.fields)) {
            sandbox.check(string)
        }
    } catch {
        expect(error.path == jobPath, "the error does not name the job file: \(error)")
        let codes: [SpoolError.Code] = [.malformedJobFile, .missingField, .invalidField]
        expect(codes.contains(error.code), "a job file refused with \(error.code): \(error)")
    }
    sandbox.check(String(decoding: bytes, as: UTF8.self))
    return 0
}

private func checkAccepted(_ job: JobFile) {
    expect(!job.kind.isEmpty && job.fields["kind"] == .string(job.kind), "kind \(job.kind.debugDescription)")
    expect(job.maxAttempts.map { $0 >= 1 } ?? true, "maxAttempts \(String(describing: job.maxAttempts))")
    expect(job.baseDelay.map { $0 >= .zero } ?? true, "baseDelay \(String(describing: job.baseDelay))")
    expect(job.after.allSatisfy { !$0.isEmpty }, "an empty id in after: \(job.after)")
    expect(Set(job.parameters.keys).isDisjoint(with: JobFile.commonFields), "parameters with common fields")
    // What `lineup enqueue` writes must read back as the same job.
    do throws(SpoolError) {
        let again = try JobFile(data: job.encoded(), path: jobPath)
        expect(again == job, "the job changed through encoding: \(job.fields) became \(again.fields)")
        let fields = try job.parameters(as: [String: JSONValue].self)
        expect(fields == job.fields, "parameters(as:) decoded \(fields), the file has \(job.fields)")
    } catch {
        fatalError("an accepted job file does not survive encoding: \(error)")
    }
}

/// JobFile parses plain JSON with a fast parser of its own and leaves the rest to `JSONDecoder`:
/// what it accepts must be what `JSONDecoder` reads, case for case (`.integer(1)` is not
/// `.number(1)` here, though the two are equal as values).
private func checkReadAsJSONDecoderReads(_ job: JobFile, from bytes: Data) {
    guard let decoded = try? JSONDecoder().decode([String: JSONValue].self, from: bytes) else {
        fatalError("a job file JSONDecoder refuses was accepted: \(job.fields)")
    }
    expect(sameCases(.object(job.fields), .object(decoded)), "the job file read \(job.fields), JSONDecoder reads \(decoded)")
    // parameters(as:) must give, for a type that tries one reading after another, every
    // answer JSONDecoder gives from the text.
    let parameters = try? job.parameters(as: [String: Probe].self)
    let reference = try? JSONDecoder().decode([String: Probe].self, from: bytes)
    expect(
        parameters.map { Probe.object($0) } == reference.map { Probe.object($0) },
        "parameters(as:) read \(String(describing: parameters)), JSONDecoder reads \(String(describing: reference))")
}

/// A value read by trying narrow types first, as a parameter type that catches decoding
/// errors would: each attempt that fails or succeeds must do so as with `JSONDecoder`.
/// Numbers compare bit for bit (`-0.0` is not `0.0`).
private enum Probe: Decodable, Equatable {
    case null
    case int8(Int8)
    case uint16(UInt16)
    case int(Int)
    case float(Float)
    case double(Double)
    case bool(Bool)
    case string(String)
    case array([Probe])
    case object([String: Probe])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Int8.self) {
            self = .int8(value)
        } else if let value = try? container.decode(UInt16.self) {
            self = .uint16(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(Float.self) {
            self = .float(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([Probe].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: Probe].self))
        }
    }

    static func == (lhs: Probe, rhs: Probe) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.int8(a), .int8(b)): a == b
        case let (.uint16(a), .uint16(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.float(a), .float(b)): a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.bool(a), .bool(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a == b
        default: false
        }
    }
}

private func sameCases(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case let (.integer(a), .integer(b)): a == b
    case let (.number(a), .number(b)): a == b
    case let (.array(a), .array(b)): a.count == b.count && zip(a, b).allSatisfy(sameCases)
    case let (.object(a), .object(b)):
        a.count == b.count && a.allSatisfy { key, value in b[key].map { sameCases(value, $0) } ?? false }
    case (.integer, _), (.number, _), (.array, _), (.object, _): false
    default: lhs == rhs
    }
}

private func strings(in value: JSONValue) -> [String] {
    switch value {
    case .string(let string): return [string]
    case .array(let elements): return elements.flatMap(strings)
    case .object(let fields): return fields.keys.sorted() + fields.values.flatMap(strings)
    default: return []
    }
}
