extension JobFile {
    /// The priorities a job may have: 0 runs first, 9 last.
    ///
    /// Lower runs first, as in Oban, Solid Queue, River and GoodJob, so that "priority 0" reads as
    /// "most urgent" whichever of them an operator knows. Ten levels, as Oban has: enough to
    /// tell urgent, ordinary and background work apart, and one digit in a spool file's name.
    public static let priorities = 0...9

    /// The priority of a job whose file says none: the middle, so that a producer can put a job
    /// ahead of the ordinary flow (0–4) or behind it (6–9) without every other producer having
    /// to say a priority. A file of an older Lineup has none and keeps its place.
    public static let defaultPriority = 5

    /// The job's place in the claim order of its queue: jobs of a lower priority are claimed
    /// first, and jobs of one priority first in, first out. ``defaultPriority`` when the file
    /// has no `priority`.
    public var priority: Int {
        fields["priority"]?.integerValue ?? Self.defaultPriority
    }

    /// The queue the job runs in, whatever its kind; nil when the file names none, and the
    /// daemon's queue for the kind runs it. A daemon with no queue of this name runs it where it
    /// would run the kind (see the article "Operating the daemon").
    public var queue: String? {
        fields["queue"]?.stringValue
    }

    /// How long after a job holding ``uniqueKey`` is done the key stays taken: a job
    /// with the same key is refused while one is queued or running, and, with `uniqueFor`, for
    /// that long after one was done. A failed job does not hold its key. nil: only while queued
    /// or running. The file may say it as seconds or as a text such as `"1h"`.
    public var uniqueFor: Duration? {
        let seconds =
            switch fields["uniqueFor"] {
            case .string(let text)?: JobFileFieldReader.seconds(text)
            case let value?: value.doubleValue
            case nil: Double?.none
            }
        return seconds.map(Duration.init(jobFileSeconds:))
    }
}
