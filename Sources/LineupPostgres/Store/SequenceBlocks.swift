import Foundation
import LineupStore
import LineupLocking
import Logging

/// Values handed out one at a time from blocks that a PostgreSQL sequence allocates: every
/// process that writes the database takes blocks of its own, so no two hand out the same value,
/// and only one value in `blockSize` costs a round trip.
final class SequenceBlocks: Sendable {
    private let block = Locked<Range<Int64>>(0..<0)
    private let take: @Sendable () throws -> Range<Int64>
    private let logger: Logger

    init(logger: Logger, take: @escaping @Sendable () throws -> Range<Int64>) {
        self.logger = logger
        self.take = take
    }

    /// The next value. Cannot fail, since the callers cannot (an object's insert or change):
    /// when the server cannot give a new block, it waits and asks again, saying so in the log.
    /// The save that follows would fail anyway until the server is back.
    func next() -> Int64 {
        while true {
            if let value = block.withLock({ $0.popFirst() }) { return value }
            // Taken outside the lock, which is never held while waiting. Two threads that find
            // the block empty at once both take one; the one that comes second is dropped, and
            // its values are simply never used.
            let fresh = nextBlock()
            block.withLock { if $0.isEmpty { $0 = fresh } }
        }
    }

    /// A whole new block, for a caller that hands its values out itself (a context's keys).
    func nextBlock() -> Range<Int64> {
        while true {
            do {
                return try take()
            } catch {
                logger.error("cannot take a block of values from PostgreSQL; trying again in 1 s", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }
}
