import Foundation
import LineupAllocator
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    @Suite("Allocator")
    struct AllocatorTests {
        /// Release builds of the executables link jemalloc for the stack's throughput (see
        /// `ProcessAllocator`); a change of link order, or a build that loses the library, would
        /// hand `malloc` back to glibc without an error anywhere. Debug builds keep the C
        /// library's, and a sanitizer build intercepts `malloc` before any library: the start line
        /// must say which, as this test process (built alike) finds it.
        @Test("lineupd's start line names the allocator that serves its malloc: jemalloc in a release build, the C library's or a sanitizer's in a debug build")
        func startLineNamesTheAllocator() async throws {
            try await withSandbox { sandbox in
                let daemon = try await sandbox.startDaemon(["--log-format", "json"])
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))

                let starting = try sandbox.daemonLog.split(separator: "\n").compactMap { line in
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                }.first { $0["message"] as? String == "lineupd starting" }
                let allocator = try #require(starting?["malloc"] as? String, "no malloc in the start line:\n\(sandbox.daemonLog)")
                #if DEBUG
                let expected = ProcessAllocator.current == .sanitizer ? ProcessAllocator.sanitizer : .cLibrary
                #expect(allocator == expected.description)
                #else
                #expect(allocator.hasPrefix("jemalloc 5."), "lineupd runs on \(allocator)")
                #endif
            }
        }
    }
}
