import Foundation

/// A fresh directory, removed (even when made read-only) when the value is released.
final class ScratchDirectory {
    let url: URL

    /// - Parameter prefix: the start of the directory's name, so that a leftover names its suite.
    init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try setPermissions(0o755, of: url)
    }

    deinit {
        try? setPermissions(0o755, of: url)
        try? FileManager.default.removeItem(at: url)
    }

    func write(_ data: Data, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    /// Makes the directory and every file in it read-only (0555 and 0444).
    func makeReadOnly() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            try setPermissions(0o444, of: url.appendingPathComponent(name))
        }
        try setPermissions(0o555, of: url)
    }
}

private func setPermissions(_ mode: Int, of url: URL) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
}
