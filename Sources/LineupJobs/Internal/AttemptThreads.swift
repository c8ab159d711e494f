import Foundation
import LineupLocking

/// The runner's own threads, which run its attempts: made when the attempts under way need one
/// more, kept for the next attempt, ended when the runner stops.
///
/// The job queues (`OperationQueue`) decide which task starts and when; a task's `start()`
/// hands its attempt to these threads and returns at once. So there are as many threads as
/// attempts have run at once: the queues' widths, plus the threads of timed-out tasks that never
/// stopped. Not libdispatch's pools: on Linux they keep about one runnable thread per core and add
/// one about a second once those block, so blocking jobs beyond the first few would start a
/// second apart (and, in the pool that runs Swift tasks, hold back every Swift task of the
/// process). Not a new serial queue per attempt either, which cost a queue, and often a thread,
/// for each job.
///
/// An idle thread sleeps on a mailbox of its own, so handing it an attempt wakes that one
/// thread, and the thread that ran last is reused first (its stack is warm).
final class AttemptThreads: Sendable {
    private struct Pool {
        /// Threads waiting for an attempt, the one that finished last at the end.
        var idle: [Worker] = []
        /// Threads made and not ended, idle or not.
        var threads = 0
        var isStopped = false
    }

    /// One thread's mailbox: where it sleeps while idle.
    private final class Worker: Sendable {
        enum Mail {
            case empty
            case work(@Sendable () -> Void)
            case stop
        }

        let mailbox = Locked(Mail.empty)

        /// Sleeps until an attempt or the stop arrives; nil for the stop.
        func waitForWork() -> (@Sendable () -> Void)? {
            mailbox.withLock(
                when: { mail in
                    if case .empty = mail { return false }
                    return true
                },
                { mail in
                    defer { mail = .empty }
                    if case let .work(work) = mail { return work }
                    return nil
                })
        }
    }

    private let pool = Locked(Pool())
    private let threadName: String

    init(named threadName: String) {
        self.threadName = threadName
    }

    /// Threads that run something now (an attempt, or a thread ending): not idle.
    var busyThreads: Int {
        pool.withLock { $0.threads - $0.idle.count }
    }

    /// Threads made and not ended.
    var threads: Int {
        pool.withLock { $0.threads }
    }

    /// Runs `work` on an idle thread, or on a new one when none is idle.
    func run(_ work: @escaping @Sendable () -> Void) {
        let idle = pool.withLock { pool in
            let worker = pool.idle.popLast()
            if worker == nil { pool.threads += 1 }
            return worker
        }
        guard let worker = idle else {
            let thread = Thread { self.serve(first: work) }
            thread.name = threadName
            thread.start()
            return
        }
        worker.mailbox.withLock { $0 = .work(work) }
    }

    /// Ends the idle threads now, and the others as their attempts end. Work handed over after
    /// this still runs, each on a thread that ends with it.
    func stop() {
        let idle = pool.withLock { pool in
            pool.isStopped = true
            pool.threads -= pool.idle.count
            defer { pool.idle.removeAll() }
            return pool.idle
        }
        for worker in idle {
            worker.mailbox.withLock { $0 = .stop }
        }
    }

    private func serve(first: @escaping @Sendable () -> Void) {
        let worker = Worker()
        var next: (@Sendable () -> Void)? = first
        while let work = next {
            work()
            let keepsServing = pool.withLock { pool in
                guard !pool.isStopped else {
                    pool.threads -= 1
                    return false
                }
                pool.idle.append(worker)
                return true
            }
            next = keepsServing ? worker.waitForWork() : nil
        }
    }
}
