import Foundation
import Testing

extension DaemonTests {
    /// The power-loss simulation of issue 9 over its small workload, at every crash state: each
    /// state after an fsync of the recorded run, written out as a power cut would leave it, then
    /// recovered by `lineupd` and checked (see `scripts/powerloss/powerloss.py`). It found the
    /// statistics report renamed into place without a sync of its directory: a job
    /// acknowledged, its report gone after the cut.
    @Suite("power loss")
    struct PowerLossTests {
        static let package = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        @Test("every crash state of a recorded run recovers: no acknowledged job lost, every job once, every row once")
        func everyCrashStateRecovers() async throws {
            try await withSandbox { sandbox in
                let interposer = sandbox.root.appending(path: "interpose.so")
                let compiled = try await sandbox.run(
                    URL(fileURLWithPath: "/usr/bin/env"),
                    [
                        "clang", "-std=gnu11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", interposer.path,
                        Self.package.appending(path: "scripts/powerloss/interpose.c").path, "-ldl",
                    ])
                try #require(compiled.termination == .exited(0), "\(compiled.standardError)")
                let simulation = try await sandbox.run(
                    URL(fileURLWithPath: "/usr/bin/env"),
                    [
                        "python3", Self.package.appending(path: "scripts/powerloss/powerloss.py").path,
                        "--interposer", interposer.path, "--binaries", try Binaries.lineupd.deletingLastPathComponent().path,
                        "--samples", Self.package.appending(path: "samples").path, "--cuts", "all", "--seed", "1",
                    ],
                    timeout: .seconds(900))
                print(simulation.standardOutput, terminator: "")
                #expect(simulation.termination == .exited(0), "\(simulation.standardError)")
                #expect(simulation.standardOutput.contains("crash states checked"))
            }
        }
    }
}
