public import Foundation
import LineupJobs

/// The secret that the dashboard's actions (retry, discard, flush now) must present, read from
/// `--http-token-file` at start: `Authorization: Bearer <token>`.
///
/// Without a token file the actions are off (403) and the dashboard is read-only. Reading needs
/// the token too when the endpoint is bound beyond loopback, where anyone on the network could
/// read job files and failure reasons; there an `EventSource`, which cannot set headers, may
/// give it as `?token=` instead.
public struct ActionToken: Sendable {
    private let secret: [UInt8]

    /// The longest token file read: a token is a line of text.
    static let maximumLength = 4_096

    /// Reads the token: the file's first line, surrounding spaces removed.
    ///
    /// - Throws: ``DaemonError`` (invalid configuration) naming the file when it cannot be
    ///   read, is empty, or holds a token shorter than 16 characters.
    public init(contentsOf url: URL) throws {
        func invalid(_ message: String) -> DaemonError {
            DaemonError(.invalidConfiguration, path: url.path, "`--http-token-file` \(message)")
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: Self.maximumLength + 1) ?? Data()
        } catch {
            throw invalid("cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= Self.maximumLength else { throw invalid("is longer than \(Self.maximumLength) bytes") }
        let firstLine = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let token = firstLine.trimmingCharacters(in: .whitespaces)
        guard token.count >= 16 else { throw invalid("must hold a token of 16 characters or more on its first line") }
        secret = Array(token.utf8)
    }

    /// Whether `presented` is the token, compared in time that does not depend on where the two
    /// first differ.
    func matches(_ presented: Substring) -> Bool {
        let bytes = Array(presented.utf8)
        var difference = UInt8(truncatingIfNeeded: bytes.count ^ secret.count)
        for index in secret.indices {
            difference |= secret[index] ^ (index < bytes.count ? bytes[index] : 0)
        }
        return difference == 0
    }
}
