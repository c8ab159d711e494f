import LineupJobs
import LineupStore

/// The demo's own job kind: its first attempt fails with a retryable error, as a job reading a
/// feed that is briefly down would; the daemon retries it after its backoff, and the second
/// attempt succeeds. It changes nothing in the store.
final class FlakyFeedTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: no state of its own (see JobTask).
    static let kind = "demo-flaky-feed"

    struct FeedDown: RetryableError, CustomStringConvertible {
        var isRetryable: Bool { true }
        var description: String { "the feed did not answer (a fault the demo makes on purpose)" }
    }

    override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        if request.attempt == 1 {
            throw FeedDown()
        }
        return JobOutcome(summary: "read the feed on attempt \(request.attempt)")
    }
}
