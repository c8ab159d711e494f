import Foundation
import LineupJobs
import LineupSpool

/// A daemon event as the dashboard's event stream sends it: `event: <type>` and one line of
/// JSON with the job it is about and what happened.
struct DashboardEvent: Encodable {
    let type: String
    var job: JobInfo?
    var detail: String?
    /// For a flush: what it did (the page leaves out the empty flushes of an idle interval).
    var flush: FlushSummary?

    init(_ event: DaemonEvent) {
        switch event {
        case .started: type = "started"
        case let .jobClaimed(info): (type, job) = ("jobClaimed", info)
        case let .jobWaitingForDependencies(info, ids): (type, job, detail) = ("jobWaiting", info, ids.joined(separator: ", "))
        case let .jobStarted(info): (type, job) = ("jobStarted", info)
        case let .jobFinished(info): (type, job) = ("jobFinished", info)
        case let .retryScheduled(info, delay, error): (type, job, detail) = ("retryScheduled", info, "in \(delay): \(error)")
        case let .jobFailed(info, report): (type, job, detail) = ("jobFailed", info, report.reason)
        case let .jobAcknowledged(info, _): (type, job) = ("jobAcknowledged", info)
        case let .jobReleased(info): (type, job) = ("jobReleased", info)
        case let .jobScheduled(info, notBefore): (type, job, detail) = ("jobScheduled", info, notBefore.ISO8601Format())
        case let .flushed(summary):
            type = "flushed"
            detail = "\(summary.reason): \(summary.rowsWritten) rows, \(summary.acknowledgedCount) jobs acknowledged"
            flush = summary.withoutNames
        case let .flushFailed(reason, error): (type, detail) = ("flushFailed", "\(reason): \(error)")
        case .reloaded: type = "reloaded"
        case .stopping: type = "stopping"
        case .stopped: type = "stopped"
        }
    }

    /// The server-sent event: its type, and the event as one line of JSON.
    var frame: String {
        let data = (try? StatusSnapshot.encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(type)\ndata: \(data)\n\n"
    }
}
