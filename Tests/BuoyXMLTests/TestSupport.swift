import BuoyXML
import Foundation

/// Paths of the package, the shared corpus and the samples, found from this file's path.
enum TestPaths {
    /// `Tests/BuoyXMLTests/TestSupport.swift` → the package root.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let corpus = packageRoot.appendingPathComponent("../shared/corpus/ndbc").standardizedFileURL

    static let samples = packageRoot.appendingPathComponent("samples")

    static func corpusFile(_ name: String) -> URL {
        corpus.appendingPathComponent(name)
    }

    static func sample(_ name: String) -> URL {
        samples.appendingPathComponent(name)
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("BuoyXMLTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` (UTF-8) to a file of this directory and returns its URL.
    func file(_ name: String, _ text: String) throws -> URL {
        try file(name, Data(text.utf8))
    }

    func file(_ name: String, _ data: Data) throws -> URL {
        let url = url.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}

/// Everything one read delivered.
struct ReadResult {
    var summary: BuoyReadSummary
    var observations: [BuoyObservationRecord]
    var stations: [BuoyStationRecord]
}

/// Reads a whole document into arrays.
func readAll(_ url: URL, limits: BuoyXMLLimits = .default) throws -> ReadResult {
    var observations: [BuoyObservationRecord] = []
    var stations: [BuoyStationRecord] = []
    let summary = try BuoyXMLReader(limits: limits).read(
        contentsOf: url,
        onObservation: { observations.append($0) },
        onStation: { stations.append($0) }
    )
    return ReadResult(summary: summary, observations: observations, stations: stations)
}

/// A UTC date from its ISO-8601 text, computed independently of the reader.
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else {
        fatalError("bad test date \(text)")
    }
    return date
}

/// Runs `body` and returns the `BuoyXMLError` it throws, or `nil` when it throws none (or
/// another error).
func buoyXMLError(_ body: () throws -> Void) -> BuoyXMLError? {
    do {
        try body()
        return nil
    } catch let error as BuoyXMLError {
        return error
    } catch {
        return nil
    }
}

/// What a read of a document that yields nothing threw, and what its callbacks received
/// (which must be nothing).
struct NothingReadResult {
    var error: BuoyXMLError
    var summary: BuoyReadSummary
    var callbacks: Int
}

/// Reads a document that must yield nothing; `nil` (and an issue from the caller's
/// `#require`) when the read succeeds or throws another error.
func readYieldingNothing(_ url: URL) -> NothingReadResult? {
    var callbacks = 0
    guard
        let error = buoyXMLError({
            _ = try BuoyXMLReader().read(contentsOf: url, onObservation: { _ in callbacks += 1 }, onStation: { _ in callbacks += 1 })
        }), error.code == .nothingReadable, let summary = error.summary
    else { return nil }
    return NothingReadResult(error: error, summary: summary, callbacks: callbacks)
}
