import Foundation

/// Hands batches from a producer thread to a consumer thread one at a time (the producer waits
/// until the consumer took the previous batch), so that a cursor can stay open on GRDB's reader
/// queue while the batches are used on a context's queue.
final class BatchChannel<Batch: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `condition`'s lock.
    private let condition = NSCondition()
    private var slot: Batch?
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false

    /// Producer: waits until the slot is free; returns false when the consumer has stopped.
    func put(_ batch: Batch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while slot != nil && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        slot = batch
        condition.broadcast()
        return true
    }

    /// Producer: no more batches (with the error that ended the production, if any).
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next batch, or nil at the end; rethrows the producer's error.
    func take() throws -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while slot == nil && !finished { condition.wait() }
        if let batch = slot {
            slot = nil
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Consumer: hands every batch to `body` in order; when `body` throws, stops the producer
    /// and rethrows the error as it is.
    func consume(_ body: (Batch) throws -> Void) throws {
        do {
            while let batch = try take() {
                try body(batch)
            }
        } catch {
            cancel()
            throw error
        }
    }

    /// Consumer: stop the producer (e.g. because the consumer failed).
    func cancel() {
        condition.lock()
        cancelled = true
        slot = nil
        condition.broadcast()
        condition.unlock()
    }
}
