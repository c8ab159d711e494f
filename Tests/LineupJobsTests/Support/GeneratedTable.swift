import Foundation
import Testing

/// What an article of LineupJobs' DocC catalog holds between two markers: a table that the code
/// makes, which a test holds to what the code makes now.
func generatedText(inArticle article: String, between begin: String, and end: String) throws -> String {
    let text = try String(
        contentsOf: URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Sources/LineupJobs/LineupJobs.docc/\(article).md"),
        encoding: .utf8)
    let opening = try #require(text.range(of: begin + "\n"), "\(article) has no \(begin)")
    let closing = try #require(text.range(of: "\n" + end, range: opening.upperBound..<text.endIndex), "\(article) has no \(end) after \(begin)")
    return String(text[opening.upperBound..<closing.lowerBound])
}
