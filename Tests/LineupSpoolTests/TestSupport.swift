import Foundation
import LineupSpool

/// Runs `body` with a fresh directory under the system's temporary directory and removes it
/// afterwards, whatever happens.
func withTemporaryDirectory<Result>(
    _ body: (URL) async throws -> Result
) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory
        .appending(path: "lineup-spool-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.resolvingSymlinksInPath())
}

/// Runs `body` with a spool in a fresh temporary directory. Nothing is fsynced: the tests
/// check the protocol's moves, not the disk.
func withSpool<Result>(
    _ body: (SpoolDirectory) async throws -> Result
) async throws -> Result {
    try await withTemporaryDirectory { directory in
        try await body(SpoolDirectory(root: directory.appending(path: "spool"), durability: .none))
    }
}

/// The names in one of the spool's directories, sorted.
func fileNames(in spool: SpoolDirectory, _ subdirectory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: spool.root.appending(path: subdirectory).path).sorted()
}

/// A job file's bytes.
func jobData(_ text: String) -> Data {
    Data(text.utf8)
}

/// Writes a file with the given text.
func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
}

/// Collects values from several threads.
///
/// `@unchecked Sendable` is safe because `values` is only touched while `lock` is held.
final class Collector<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// Runs `body(0)`, …, `body(count - 1)` on `count` threads of their own, all at once, and
/// returns when every one has returned.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

extension ClaimedJob {
    /// The file name in `active/` without `.job.json`: what this claim's reports are named after.
    var stem: String {
        String(fileName.dropLast(".job.json".count))
    }
}
