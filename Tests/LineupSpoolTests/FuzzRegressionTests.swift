import Foundation
import LineupTestSupport
import LineupSpool
import Testing

/// Every input the job-file fuzzer (scripts/fuzz.sh job-file) found a problem with, kept in
/// `Fuzz/` and read here as the fuzzer reads it: decoded as a job file (as `JSONDecoder` reads
/// it, case for case), then its text resolved as an input and an output path. A refusal is a
/// job's mistake (bad file, bad path), never an I/O error, which the daemon would retry. The
/// fuzzer runs them again under its sanitizers.
@Suite struct FuzzRegressionTests {
    static let inputs = FuzzInputs.files(besides: #filePath)

    @Test func thereAreInputs() {
        #expect(!Self.inputs.isEmpty)
    }

    @Test(arguments: inputs)
    func readsLikeTheFuzzer(_ input: URL) async throws {
        let bytes = try Data(contentsOf: input)
        do {
            let job = try JobFile(data: bytes, path: input.path)
            let decoded = try? JSONDecoder().decode([String: JSONValue].self, from: bytes)
            #expect(
                decoded.map { JobFileParsingTests.sameCases(.object(job.fields), .object($0)) } == true,
                "\(job.fields) against \(String(describing: decoded))")
            // What `lineup enqueue` writes reads back as the same job.
            #expect(try JobFile(data: job.encoded()) == job)
        } catch {
            let refusals: [SpoolError.Code] = [.malformedJobFile, .missingField, .invalidField]
            #expect(refusals.contains(error.code), "\(error)")
            #expect(error.path == input.path)
        }
        try await withTemporaryDirectory { directory in
            for role in ["in", "out"] {
                try FileManager.default.createDirectory(at: directory.appending(path: role), withIntermediateDirectories: true)
            }
            let policy = PathPolicy(inputDirectory: directory.appending(path: "in"), outputDirectory: directory.appending(path: "out"))
            let path = String(decoding: bytes, as: UTF8.self)
            let resolvers: [(String) throws(SpoolError) -> URL] = [policy.resolveInput, policy.resolveOutput]
            for resolve in resolvers {
                do throws(SpoolError) {
                    let url = try resolve(path)
                    #expect(url.path.hasPrefix(directory.resolvingSymlinksInPath().path + "/"))
                } catch {
                    let refusals: [SpoolError.Code] = [.invalidPath, .pathOutsideAllowedDirectory, .notFound]
                    #expect(refusals.contains(error.code), "\(error)")
                    #expect(error.path == path)
                }
            }
        }
    }
}
