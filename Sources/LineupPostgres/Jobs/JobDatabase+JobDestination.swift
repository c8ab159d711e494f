public import Foundation
public import LineupSpool

extension JobDatabase: JobDestination {
    /// Inserts the job, named after its id or else its kind, and wakes the daemons.
    public func enqueue(job: JobFile) throws -> EnqueueReceipt {
        let inserted = try enqueue([Submission(name: job.id ?? job.kind, contents: try job.encoded())])
        return EnqueueReceipt(jobs: inserted, location: location)
    }

    /// Inserts the lines' jobs, `<name>.line<n>`, in one transaction.
    public func enqueue(jobLines contents: Data, name: String) throws -> EnqueueReceipt {
        let submissions = SpoolDirectory.jobLines(ofBulk: contents).map {
            Submission(name: "\(name).line\($0.number)", contents: $0.contents)
        }
        return EnqueueReceipt(jobs: try enqueue(submissions), location: location)
    }
}
