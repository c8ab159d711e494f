import Foundation
import LineupAllocator
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Allocator")
    struct AllocatorTests {
        /// The executables link jemalloc for the stack's throughput (see `ProcessAllocator`); a
        /// change of link order, or a build that loses the library, would hand `malloc` back to
        /// glibc without an error anywhere. A sanitizer build intercepts `malloc` before any
        /// library, and says so.
        @Test("lineupd's start line names the allocator that serves its malloc: jemalloc, or in a sanitizer build the sanitizer's")
        func startLineNamesJemalloc() async throws {
            try await withSandbox { sandbox in
                let daemon = try await sandbox.startDaemon(["--log-format", "json"])
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let starting = try sandbox.daemonLog.split(separator: "\n").compactMap { line in
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                }.first { $0["message"] as? String == "lineupd starting" }
                let allocator = try #require(starting?["malloc"] as? String, "no malloc in the start line:\n\(sandbox.daemonLog)")
                if ProcessAllocator.current == .sanitizer {
                    #expect(allocator == ProcessAllocator.sanitizer.description)
                } else {
                    #expect(allocator.hasPrefix("jemalloc 5."), "lineupd runs on \(allocator)")
                }
            }
        }
    }
}
