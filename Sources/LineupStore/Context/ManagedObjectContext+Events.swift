import Foundation
import LineupLocking
import Synchronization

extension ManagedObjectContext {
    /// Calls `observer` with each ``ObjectsDidChange`` event of this context, on the context's
    /// queue (so it may use the context directly). Keep the returned observation: releasing it
    /// ends the observation.
    ///
    /// Changes are tracked only while someone observes: a bulk import with nobody listening pays
    /// nothing per object for these events.
    public func observeObjectsDidChange(_ observer: @escaping @Sendable (ObjectsDidChange) -> Void) -> SaveObservation {
        let key = UUID()
        objectsDidChangeObservers.withLock { observers in
            observers[key] = observer
            observesObjectChanges.store(true, ordering: .relaxed)
        }
        return SaveObservation { [weak self] in
            guard let self else { return }
            objectsDidChangeObservers.withLock { observers in
                observers.removeValue(forKey: key)
                if observers.isEmpty { observesObjectChanges.store(false, ordering: .relaxed) }
            }
        }
    }

    /// The ``ObjectsDidChange`` events of this context, as an async sequence.
    public func objectsDidChangeEvents() -> AsyncStream<ObjectsDidChange> {
        let (stream, continuation) = AsyncStream<ObjectsDidChange>.makeStream()
        let observation = observeObjectsDidChange { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Calls `observer` at the start of every save of this context that has changes, on the
    /// context's queue, before validation (see ``ContextWillSave``).
    public func observeWillSave(_ observer: @escaping @Sendable (ContextWillSave) -> Void) -> SaveObservation {
        let key = UUID()
        willSaveObservers.withLock { $0[key] = observer }
        return SaveObservation { [weak self] in
            _ = self?.willSaveObservers.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// The ``ContextWillSave`` events of this context, as an async sequence.
    public func willSaveEvents() -> AsyncStream<ContextWillSave> {
        let (stream, continuation) = AsyncStream<ContextWillSave>.makeStream()
        let observation = observeWillSave { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    // MARK: - Internal

    /// Records a change for the next ``ObjectsDidChange`` event, when someone observes them.
    @inline(__always)
    func noteObjectChange(_ note: (inout ObjectsDidChange) -> Void) {
        guard observesObjectChanges.load(ordering: .relaxed) else { return }
        note(&unpostedObjectChanges)
    }

    /// Posts the changes recorded since the last event, if any.
    func postObjectsDidChange() {
        guard !unpostedObjectChanges.isEmpty else { return }
        let event = unpostedObjectChanges
        unpostedObjectChanges = ObjectsDidChange()
        for observer in objectsDidChangeObservers.withLock({ Array($0.values) }) {
            observer(event)
        }
    }

    /// Posts the will-save event; returns whether anyone observed it (and so may have changed
    /// objects).
    func postWillSave() -> Bool {
        let observers = willSaveObservers.withLock { Array($0.values) }
        guard !observers.isEmpty else { return false }
        let event = ContextWillSave(contextName: name)
        for observer in observers {
            observer(event)
        }
        return true
    }
}
