import Foundation

/// Where the daemon's blocking work runs that is not an attempt (attempts run on the runner's
/// own threads: ``AttemptThreads``): never on the threads of the pool that runs the process's
/// Swift tasks, and never waiting for a pool to grow.
///
/// On Linux, libdispatch's global pools (the one Swift's global executor runs on, and those an
/// `OperationQueue` or `DispatchQueue.global()` use) keep about one runnable thread per core.
/// Once their threads block, a monitor adds threads about once a second, and not at all while
/// the process already has twice as many runnable threads as cores. In the Swift tasks' pool, a
/// blocking call holds back every Swift task of the process (timers fire late, HTTP handlers do
/// not answer).
///
/// So a blocking call made on behalf of async code (the retention's) runs on a serial queue of
/// its own (``queue(named:)``), which draws its thread from libdispatch's overcommit pool: that
/// pool starts a thread at once whenever none is idle.
enum BlockingWork {
    /// The quality of service of the job queues and of their attempts.
    static let qualityOfService = QualityOfService.utility

    /// A new serial queue for a blocking call made on behalf of async code.
    static func queue(named name: String) -> DispatchQueue {
        DispatchQueue(label: name, qos: .utility)
    }
}
