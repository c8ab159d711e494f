import Foundation
import Synchronization

/// Hands every event to every subscriber's `AsyncStream`. Each subscriber buffers without
/// bound, so a slow reader misses nothing (events are few: a handful per job).
final class EventBroadcaster: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<DaemonEvent>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    func subscribe() -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DaemonEvent.self, bufferingPolicy: .unbounded)
        let key = UUID()
        let added = state.withLock { state in
            guard !state.finished else { return false }
            state.subscribers[key] = continuation
            return true
        }
        guard added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    func emit(_ event: DaemonEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            subscriber.yield(event)
        }
    }

    /// Ends every stream; later subscribers get a finished stream.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.finish()
        }
    }
}
