import Dispatch
import Foundation
import LineupLocking

/// Hands every event to every subscriber (``DaemonEvents``), in the order they were emitted.
/// Each subscriber buffers without bound, so a slow reader misses nothing.
///
/// Events are handed over in batches, on a delivery queue of their own, at most one batch a
/// millisecond, each batch one element of the subscriber's stream: a subscriber waiting for its
/// next event is woken (a thread hand-off) once per batch, the stream's buffer is locked once
/// per batch, and the threads that emit (the runner's coordinator, the tasks) never pay for
/// either. Yielded one by one, the four or so events of each job woke the reader four times a
/// job: under load, the largest single source of the daemon's thread wake-ups.
final class EventBroadcaster: Sendable {
    private struct Subscriber {
        let key: UUID
        let continuation: AsyncStream<[DaemonEvent]>.Continuation
        /// Emitted since the last delivery, oldest first.
        var pending: [DaemonEvent] = []
    }

    private struct State {
        /// Few (tests, a supervisor): an array, which `emit` can append to in place.
        var subscribers: [Subscriber] = []
        var deliveryScheduled = false
        var finished = false
    }

    private let state = Locked(State())
    private let delivery = DispatchQueue(label: "lineup.events")
    /// How long events gather before a batch goes out: short beside anything an observer
    /// waits for, long beside the time between events under load.
    private static let batchWindow = DispatchTimeInterval.milliseconds(1)

    /// A stream of the events emitted from now on.
    func subscribe() -> DaemonEvents {
        let (stream, continuation) = AsyncStream.makeStream(of: [DaemonEvent].self, bufferingPolicy: .unbounded)
        let events = DaemonEvents(batches: stream)
        let key = UUID()
        let added = state.withLock { state in
            guard !state.finished else { return false }
            state.subscribers.append(Subscriber(key: key, continuation: continuation))
            return true
        }
        guard added else {
            continuation.finish()
            return events
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.subscribers.removeAll { $0.key == key } }
        }
        return events
    }

    /// Queues `event` for every current subscriber; the delivery queue hands it over within
    /// the batch window.
    func emit(_ event: DaemonEvent) {
        let scheduleDelivery = state.withLock { state in
            guard !state.finished, !state.subscribers.isEmpty else { return false }
            for index in state.subscribers.indices {
                state.subscribers[index].pending.append(event)
            }
            guard !state.deliveryScheduled else { return false }
            state.deliveryScheduled = true
            return true
        }
        if scheduleDelivery {
            delivery.asyncAfter(deadline: .now() + Self.batchWindow) { self.deliver() }
        }
    }

    /// Ends every stream once the events emitted before are delivered; later subscribers get a
    /// finished stream and later events are dropped.
    func finish() {
        state.withLock { $0.finished = true }
        delivery.async {
            self.deliver()
            let subscribers = self.state.withLock { state in
                defer { state.subscribers = [] }
                return state.subscribers
            }
            for subscriber in subscribers {
                subscriber.continuation.finish()
            }
        }
    }

    /// Hands each subscriber the events queued for it. Runs on the delivery queue only, so
    /// batches reach a subscriber in the order they were taken.
    private func deliver() {
        let batches = state.withLock { state in
            state.deliveryScheduled = false
            var batches: [(AsyncStream<[DaemonEvent]>.Continuation, [DaemonEvent])] = []
            for index in state.subscribers.indices where !state.subscribers[index].pending.isEmpty {
                batches.append((state.subscribers[index].continuation, state.subscribers[index].pending))
                state.subscribers[index].pending = []
            }
            return batches
        }
        for (continuation, events) in batches {
            continuation.yield(events)
        }
    }
}
