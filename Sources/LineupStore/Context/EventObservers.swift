import Foundation
import LineupLocking
import Synchronization

/// The observers of one kind of context event: closures, and async sequences built on them. The
/// one mechanism behind did-save, objects-did-change and will-save.
final class EventObservers<Event: Sendable>: Sendable {
    private let observers = Locked<[UUID: @Sendable (Event) -> Void]>([:])
    /// How many observers there are, readable without the lock: objects-did-change asks at every
    /// change of an object.
    private let count = Atomic<Int>(0)

    /// Whether anyone observes.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// Adds an observer until the returned observation is cancelled or released.
    func add(_ observer: @escaping @Sendable (Event) -> Void) -> SaveObservation {
        let key = UUID()
        observers.withLock { observers in
            observers[key] = observer
            count.store(observers.count, ordering: .relaxed)
        }
        return SaveObservation { [weak self] in
            guard let self else { return }
            observers.withLock { observers in
                observers.removeValue(forKey: key)
                count.store(observers.count, ordering: .relaxed)
            }
        }
    }

    /// The events as an async sequence (ends when the task is cancelled and the stream released).
    func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let observation = add { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Calls every observer with the event, which is built only if there is one; returns whether
    /// there was.
    @discardableResult
    func post(_ event: @autoclosure () -> Event) -> Bool {
        let current = observers.withLock { Array($0.values) }
        guard !current.isEmpty else { return false }
        let event = event()
        for observer in current {
            observer(event)
        }
        return true
    }
}
