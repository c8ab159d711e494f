public import Foundation

extension SpoolDirectory: JobDestination {
    /// Writes the job file into `new/` (see ``enqueue(_:)``).
    public func enqueue(job: JobFile) throws -> EnqueueReceipt {
        EnqueueReceipt(jobs: 1, location: try enqueue(job).url.path)
    }

    /// Writes the lines into `new/` as one bulk file (see ``enqueueBulk(contents:)``); `name` is
    /// not used: a bulk file's jobs are named after it.
    public func enqueue(jobLines contents: Data, name: String) throws -> EnqueueReceipt {
        let entry = try enqueueBulk(contents: contents)
        return EnqueueReceipt(jobs: Self.bulkLineRanges(of: contents).count, location: entry.url.path)
    }
}
