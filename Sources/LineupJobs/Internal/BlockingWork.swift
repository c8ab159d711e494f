import Foundation

/// Where the daemon's blocking work runs: never on the threads of the pool that runs the
/// process's Swift tasks, and never waiting for a pool to grow.
///
/// On Linux, libdispatch's global pools (the one Swift's global executor runs on, and those an
/// `OperationQueue` or `DispatchQueue.global()` use) keep about one runnable thread per core.
/// Once their threads block, a monitor adds threads about once a second, and not at all while
/// the process already has twice as many runnable threads as cores. A job blocks its thread for
/// as long as it runs:
/// - in the Swift tasks' pool, jobs hold back every Swift task of the process (timers fire late,
///   HTTP handlers do not answer, an async job's own work waits: with twelve jobs starting, a
///   10 ms sleep took 11 s);
/// - in a pool of their own, jobs beyond the first few start about a second apart, and not at
///   all while the process is busy.
///
/// So each attempt, and each other blocking call made for async code (the retention's), runs on
/// a serial queue of its own (``queue(named:)``). A serial queue
/// draws its thread from libdispatch's overcommit pool, which starts a thread at once whenever
/// none is idle and keeps idle ones for reuse. The job queues (`OperationQueue`, utility quality
/// of service) only decide which task starts and when, and a task's `start()` returns at once.
/// (A `Thread` of Lineup's own per attempt would do as well, but the hop to it cost the spool
/// benchmark a third of its jobs a second.)
enum BlockingWork {
    /// The quality of service of the job queues and of their attempts.
    static let qualityOfService = QualityOfService.utility

    /// A new serial queue for one piece of blocking work: an attempt, or a blocking call made
    /// on behalf of async code.
    static func queue(named name: String) -> DispatchQueue {
        DispatchQueue(label: name, qos: .utility)
    }
}
