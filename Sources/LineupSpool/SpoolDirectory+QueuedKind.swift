import Foundation
import LineupLocking

extension SpoolDirectory {
    /// The kind of the job file `fileName` in `new/`, read once while it stays there (a file in
    /// `new/` never changes: producers rename complete files in); nil when it cannot be read or
    /// has no kind (the claim then fails it with the reason).
    func queuedKind(of fileName: String) -> String? {
        if let known = queuedKinds.withLock({ $0[fileName] }) { return known }
        let path = path(of: .queued) + "/" + fileName
        guard let (contents, size) = try? FileSystem.readFile(path, limit: Self.maximumJobFileSize),
            size <= Self.maximumJobFileSize
        else { return nil }
        let kind = (try? JobFile(data: contents))?.kind
        queuedKinds.withLock { kinds in
            // Files claimed or gone are forgotten when the list grows past what `new/` could
            // plausibly hold of held-back jobs.
            if kinds.count > 10_000 { kinds.removeAll() }
            kinds[fileName] = .some(kind)
        }
        return kind
    }
}
