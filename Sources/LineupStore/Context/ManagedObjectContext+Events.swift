extension ManagedObjectContext {
    /// Calls `observer` with each ``ObjectsDidChange`` event of this context, on the context's
    /// queue (so it may use the context directly). Keep the returned observation: releasing it
    /// ends the observation.
    ///
    /// Changes are tracked only while someone observes: a bulk import with nobody listening pays
    /// nothing per object for these events.
    public func observeObjectsDidChange(_ observer: @escaping @Sendable (ObjectsDidChange) -> Void) -> SaveObservation {
        objectsDidChangeObservers.add(observer)
    }

    /// The ``ObjectsDidChange`` events of this context, as an async sequence.
    public func objectsDidChangeEvents() -> AsyncStream<ObjectsDidChange> {
        objectsDidChangeObservers.stream()
    }

    /// Calls `observer` at the start of every save of this context that has changes, on the
    /// context's queue, before validation (see ``ContextWillSave``).
    public func observeWillSave(_ observer: @escaping @Sendable (ContextWillSave) -> Void) -> SaveObservation {
        willSaveObservers.add(observer)
    }

    /// The ``ContextWillSave`` events of this context, as an async sequence.
    public func willSaveEvents() -> AsyncStream<ContextWillSave> {
        willSaveObservers.stream()
    }

    /// Calls `observer` each time a child's save has been accepted into this context, on this
    /// context's queue (see ``ChildSaveAccepted``). Keep it short: the child's save returns after
    /// it.
    public func observeChildSaves(_ observer: @escaping @Sendable (ChildSaveAccepted) -> Void) -> SaveObservation {
        childSaveObservers.add(observer)
    }

    /// The ``ChildSaveAccepted`` events of this context, as an async sequence.
    public func childSaveEvents() -> AsyncStream<ChildSaveAccepted> {
        childSaveObservers.stream()
    }

    // MARK: - Internal

    /// Records a change for the next ``ObjectsDidChange`` event, when someone observes them.
    @inline(__always)
    func noteObjectChange(_ note: (inout ObjectsDidChange) -> Void) {
        guard objectsDidChangeObservers.isObserved else { return }
        note(&unpostedObjectChanges)
    }

    /// Posts the changes recorded since the last event, if any.
    func postObjectsDidChange() {
        guard !unpostedObjectChanges.isEmpty else { return }
        let event = unpostedObjectChanges
        unpostedObjectChanges = ObjectsDidChange()
        objectsDidChangeObservers.post(event)
    }

    /// Posts the will-save event; returns whether anyone observed it (and so may have changed
    /// objects).
    func postWillSave() -> Bool {
        willSaveObservers.post(ContextWillSave(contextName: name))
    }
}
