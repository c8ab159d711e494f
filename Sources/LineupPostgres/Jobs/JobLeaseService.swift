import ServiceLifecycle
import LineupJobs

/// The database's job storage, kept alive: listening for new jobs, and the ticks that renew this
/// daemon's lease, take jobs back from daemons that died, and poll (``DatabaseJobStorage``).
///
/// It is the first service of the group, so that it stops last: the lease must hold until the
/// runner's final flush has acknowledged its jobs. It gives the lease up only when the runner
/// stopped every task (`givesUpLease`): a task that still runs keeps its job claimed until the
/// lease runs out by itself.
struct JobLeaseService: Service, CustomStringConvertible {
    let jobs: DatabaseJobStorage
    let pollInterval: Duration
    /// Called when jobs may be due: the runner's claim hint.
    let hint: @Sendable () -> Void
    let givesUpLease: @Sendable () -> Bool

    var description: String { "job lease" }

    func run() async {
        jobs.startListening(pollInterval: pollInterval, hint: hint)
        // Jobs inserted before the listening began sent a notification nobody heard.
        hint()
        let interval = jobs.tickInterval(polling: pollInterval)
        let (jobs, hint) = (jobs, hint)
        await RecurringService(name: "job lease ticks", worksAtStart: false, pause: { interval }) {
            await jobs.tick(hint: hint)
        }.run()
        if givesUpLease() {
            jobs.stop()
        }
    }
}
