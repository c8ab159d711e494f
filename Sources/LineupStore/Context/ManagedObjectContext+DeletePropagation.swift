import LineupLocking

extension ManagedObjectContext {
    /// Whether the end of an event applies the delete rules of the objects deleted in it, as Core
    /// Data's `propagatesDeletesAtEndOfEvent` (true by default): the end of each outermost
    /// `perform` or `performAndWait` block, and ``processPendingChanges()``. The objects a
    /// `.nullify` reaches then no longer point at the deleted object, and the ones a `.cascade`
    /// reaches are deleted, before the save. When false, the rules apply at the save.
    ///
    /// Either way, the save applies them again for what changed since (an object related to a
    /// deleted one after the event), and a `.deny` is reported by the save: the end of an event
    /// that meets one leaves every object as it was, as Core Data leaves denials to validation.
    public var propagatesDeletesAtEndOfEvent: Bool {
        get { settings.withLock { $0.propagatesDeletesAtEndOfEvent } }
        set { settings.withLock { $0.propagatesDeletesAtEndOfEvent = newValue } }
    }

    /// The end of an event's part of the delete rules (see ``propagatesDeletesAtEndOfEvent``).
    func propagatePendingDeletes() {
        guard propagatesDeletesAtEndOfEvent else { return }
        // A denial, or a fetch that fails, changes nothing here (the rules are worked out before
        // anything changes): the save applies them again and throws what it meets.
        try? applyDeleteRules()
        // Cleared after: the cascade's own deletes set it, and were propagated with the rest.
        needsDeletePropagation = false
    }
}
