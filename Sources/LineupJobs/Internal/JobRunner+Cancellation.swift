import Foundation
import LineupSpool
import Logging

/// What the runner did with an operator's request to cancel a job it holds.
enum HeldJobCancellation: Equatable {
    /// Its task was running (or queued to run): it is stopping, and fails as cancelled by an
    /// operator once it has.
    case stopping
    /// It was not running (waiting for the jobs in its `after` list, or for a retry): failed now.
    case failed
    /// It had finished: its work is kept, and the next flush acknowledges it.
    case finishedAlready
}

extension JobRunner {
    /// Acts on the cancellations that operators asked for (``JobStorage/cancellationRequests()``):
    /// stops each job that this runner holds under the id or name, and forgets the request.
    func checkCancellationRequests() async {
        await onCoordinator { self.actOnCancellationRequests() }
    }

    private func actOnCancellationRequests() {
        assertOnCoordinator()
        let requests: [String]
        do {
            requests = try jobs.cancellationRequests()
        } catch {
            logger.error("cannot read the requests to cancel jobs", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
            return
        }
        guard !requests.isEmpty else { return }
        var actedOn: [String] = []
        var notHeld: [String] = []
        for job in requests {
            let held = live.values.filter { $0.name == job || $0.file?.id == job }
            if held.isEmpty {
                notHeld.append(job)
                continue
            }
            actedOn.append(job)
            for record in held.sorted(by: { $0.claim < $1.claim }) {
                cancelByOperator(record)
            }
        }
        do {
            for job in try jobs.settleCancellationRequests(actedOn: actedOn, notHeld: notHeld) {
                logger.info("no running job to cancel; request dropped (it had finished)", metadata: ["job": "\(job)"])
            }
        } catch {
            logger.error("cannot settle the requests to cancel jobs", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
        }
    }

    /// Cancels a job this runner holds, as an operator asked: a running task stops and its
    /// unsaved work is discarded; a job that waits is failed at once. Either way it fails for
    /// good, with ``JobError/Code/cancelledByOperator``, and is not retried.
    @discardableResult
    func cancelByOperator(_ record: Record) -> HeldJobCancellation? {
        assertOnCoordinator()
        let error = JobError(
            .cancelledByOperator, "job \(record.jobID) was cancelled by an operator before it ran",
            jobFile: record.claimed.enqueuedFileName)
        switch record.state {
        case .claimed, .waitingForDependencies, .waitingForRetry:
            dependencies.unpark(record.claim)
            logger.warning("job cancelled by an operator", metadata: ["job": "\(record.jobID)", "attempt": "\(record.attempt)"])
            failPermanently(record, error)
            return .failed
        case let .queued(task):
            guard task.stop(.cancelledByOperator) else {
                // Saving already (or stopped for a time limit): its end decides.
                logger.info("job asked to be cancelled is finishing already", metadata: ["job": "\(record.jobID)"])
                return .finishedAlready
            }
            logger.warning(
                "job cancelled by an operator; stopping it", metadata: ["job": "\(record.jobID)", "attempt": "\(record.attempt)"])
            failIfStillRunning(claim: record.claim, task: task, stoppedFor: .cancelledByOperator)
            return .stopping
        case .awaitingFlush:
            logger.info("job asked to be cancelled had finished; it is kept", metadata: ["job": "\(record.jobID)"])
            return .finishedAlready
        case .settled:
            return nil
        }
    }
}
