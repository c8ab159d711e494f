import Foundation

/// The Dispatch pool that the daemon's blocking work runs on: the utility pool, not the one that
/// runs the process's Swift tasks.
///
/// On Linux, Swift's global concurrent executor runs on libdispatch's default-QoS pool, as do an
/// `OperationQueue` of default quality of service and `DispatchQueue.global()`. That pool keeps
/// about one runnable thread per core and, once its threads block, adds threads slowly, about one
/// a second. A job blocks its thread for as long as it runs, so jobs there hold back every Swift
/// task of the process: timers fire late, HTTP handlers do not answer, an async job's own work
/// waits. With twelve such jobs starting, a 10 ms sleep of a Swift task took 11 s. Each pool
/// grows on its own, so blocking work in the utility pool leaves the Swift tasks theirs.
///
/// (A thread of Lineup's own for each attempt would do as well, but the hop to it cost the spool
/// benchmark a third of its jobs a second.)
enum BlockingWork {
    /// The quality of service of the job queues.
    static let qualityOfService = QualityOfService.utility
    /// The queue for a blocking call made on behalf of async code.
    static var queue: DispatchQueue { DispatchQueue.global(qos: .utility) }
}
