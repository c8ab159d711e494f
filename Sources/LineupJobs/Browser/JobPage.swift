/// A page of the job browser: the jobs, newest first within each state, and where the next
/// page starts.
public struct JobPage: Sendable, Encodable {
    public var jobs: [JobRow]
    /// The cursor of the next page; nil when this page is the last. A page may hold fewer jobs
    /// than asked and still have a next one: a source that bounds its work per page (a spool,
    /// reading files for a filter on kind) stops where its budget ran out.
    public var next: String?
    /// How many files a spool opened or examined for this page (rows, on a database): the work
    /// a page costs, bounded whatever the number of jobs.
    public var examined: Int
    /// Where the jobs come from: `spool` or `database`.
    public var source: String

    public init(jobs: [JobRow], next: String?, examined: Int, source: String) {
        self.jobs = jobs
        self.next = next
        self.examined = examined
        self.source = source
    }
}
