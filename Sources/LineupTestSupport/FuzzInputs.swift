public import Foundation

/// The inputs a fuzzer found problems with, kept in a `Fuzz/` directory beside a test file
/// (scripts/fuzz.sh takes them as seeds too).
public enum FuzzInputs: Sendable {
    /// The files in the `Fuzz/` directory beside `testFile` (pass `#filePath`), in name order.
    public static func files(besides testFile: String) -> [URL] {
        let directory = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Fuzz")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }
}
