import Foundation
import LineupSpool
import Logging

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
        let (actedOn, notHeld, actions) = state.operatorsCancelled(requests)
        perform(actions)
        do {
            for job in try jobs.settleCancellationRequests(actedOn: actedOn, notHeld: notHeld) {
                logger.info("no running job to cancel; request dropped (it had finished)", metadata: ["job": "\(job)"])
            }
        } catch {
            logger.error("cannot settle the requests to cancel jobs", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
        }
    }
}
