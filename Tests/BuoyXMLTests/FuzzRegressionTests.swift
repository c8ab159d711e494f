import BuoyXML
import Foundation
import LineupTestSupport
import Testing

/// Every input the buoy XML fuzzer (scripts/fuzz.sh buoy-xml) found a problem with, kept in
/// `Fuzz/` and read here as the fuzzer reads it: no crash, an error that names the file, and a
/// summary that counts what was delivered. The fuzzer runs them again under its sanitizers.
@Suite struct FuzzRegressionTests {
    static let inputs = FuzzInputs.files(besides: #filePath)

    @Test func thereAreInputs() {
        #expect(!Self.inputs.isEmpty)
    }

    @Test(arguments: inputs)
    func readsLikeTheFuzzer(_ input: URL) throws {
        let reader = BuoyXMLReader()
        var delivered = 0
        do {
            _ = try reader.validate(contentsOf: input)
            let summary = try reader.read(contentsOf: input, onObservation: { _ in delivered += 1 }, onStation: { _ in })
            #expect(summary.observationCount == delivered)
        } catch let error as BuoyXMLError {
            #expect(error.description.contains(input.path), "\(error)")
        }
    }
}
