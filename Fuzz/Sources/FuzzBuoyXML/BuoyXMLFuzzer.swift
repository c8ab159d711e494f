// libFuzzer entry point for the buoy XML readers. Each input is written to a file, as the
// importer reads files, then checked and read through the format-detecting entry point.
//
// Beyond "no crash, no sanitizer report": an error must be a BuoyXMLError that names the file,
// and what a successful read reports must be what it delivered.

import BuoyXML
import Foundation
import FuzzSupport

private let inputPath = scratchPath("input.xml")

@main
enum BuoyXMLFuzzer {
    static func main() { runFuzzer(fuzzBuoyXML) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzBuoyXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let url = URL(fileURLWithPath: inputPath)
    guard FileManager.default.createFile(atPath: url.path, contents: inputData(data, size)) else {
        fatalError("cannot write the fuzz input to \(url.path)")
    }
    let reader = BuoyXMLReader()
    do {
        _ = try reader.validate(contentsOf: url)
    } catch {
        check(error, url)
        return 0
    }
    var observations = 0
    var stations = 0
    do {
        let summary = try reader.read(
            contentsOf: url,
            onObservation: { record in
                expect(record.time.timeIntervalSince1970.isFinite, "an observation without a finite time")
                observations += 1
            },
            onStation: { _ in stations += 1 })
        expect(summary.observationCount == observations, "summary counts \(summary.observationCount), delivered \(observations)")
        expect(summary.stationCount == stations, "summary counts \(summary.stationCount) stations, delivered \(stations)")
    } catch {
        check(error, url)
    }
    return 0
}

private func check(_ error: any Error, _ url: URL) {
    guard let error = error as? BuoyXMLError else {
        fatalError("not a BuoyXMLError: \(error)")
    }
    expect(error.description.contains(url.path), "the error does not name the file: \(error)")
}
