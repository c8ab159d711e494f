public import LineupSpool

/// A recurring job of the configuration file's `cron` list: the job file to enqueue each time
/// the schedule fires (see ``CronScheduler``).
///
/// ```json
/// "cron": [{"name": "nightly-export", "schedule": "0 3 * * *",
///           "job": {"kind": "export-csv", "entity": "JournalEntry", "output": "nightly.csv"}}]
/// ```
public struct CronJob: Sendable, Hashable {
    /// Names the entry in the job's file name and in the scheduler's state: letters, digits,
    /// `-` and `_`.
    public var name: String
    /// When the job is enqueued: a five-field cron expression, read in UTC.
    public var schedule: CronSchedule
    /// The job enqueued each time; a `notBefore` in it is ignored.
    public var job: JobFile

    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` for a name of other
    ///   characters, or empty.
    public init(name: String, schedule: CronSchedule, job: JobFile) throws(DaemonError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy(allowed.contains) else {
            throw DaemonError(
                .invalidConfiguration, path: nil,
                "a cron job's name must be 1 to 100 letters, digits, - and _; found \"\(name)\"")
        }
        self.name = name
        self.schedule = schedule
        self.job = job
    }
}
