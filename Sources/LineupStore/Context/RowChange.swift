/// One row's unsaved change, as a context pushes it to its parent and as contexts publish it to
/// their descendants. A value type: it crosses queues.
package struct RowChange: Sendable {
    enum Kind: Sendable, Equatable {
        case insert
        case update
        case delete
    }

    var kind: Kind
    /// How a conflict of this change is settled, wherever it meets one (a parent context, the
    /// store): the merge policy that the context which made it set for itself, which travels
    /// with it up the stack, so that a task's policy settles its rows' conflicts at the store as
    /// Core Data's saving context's does; nil when that context set none (it inherits its
    /// parent's), and then the policy of the context that pushes it decides, at each level. Next
    /// to `kind`, in the padding before `entity`: it costs a row no memory.
    var mergePolicy: MergePolicy?
    /// Not retained: entity descriptions live as long as the process (see `EntityCache`), and a
    /// retain and release of one shared object for every row, on the importing thread and on the
    /// writer at once, makes both wait for the same cache line.
    package unowned(unsafe) let entity: EntityDescription
    /// The full row after the change (for a delete, the last values known).
    package var values: [StoreValue]
    /// For an update: the properties changed relative to `baseValues`.
    var changedMask: PropertyMask
    /// For an update: the values the change started from (used to merge property by property).
    var baseValues: [StoreValue]?
    /// The version in the parent that this change is based on (0 for an insert).
    var baseStamp: Int64
    /// The version of `values`.
    package var stamp: Int64

    /// What the parent made of this change when it reports no exception for it.
    var outcomeAsPushed: AcceptedChange {
        kind == .delete ? .removed : .stored(RowSnapshot(values: values, stamp: stamp))
    }

    /// This change followed by a later change of the same row.
    func followed(by later: RowChange) -> RowChange? {
        switch (kind, later.kind) {
        case (.insert, .delete):
            return nil  // Never reached the parent: nothing to push.
        case (.insert, _):
            var merged = later
            merged.kind = .insert
            merged.baseStamp = 0
            merged.baseValues = nil
            merged.changedMask = .empty
            return merged
        case (.update, .insert), (.delete, .insert):
            return later
        case (.update, .update), (.update, .delete), (.delete, _):
            var merged = later
            merged.baseStamp = baseStamp
            merged.baseValues = baseValues
            merged.changedMask = changedMask.union(later.changedMask)
            return merged
        }
    }
}

/// A row as some level of the stack currently sees it.
package struct RowSnapshot: Sendable {
    package var values: [StoreValue]
    package var stamp: Int64

    package init(values: [StoreValue], stamp: Int64) {
        self.values = values
        self.stamp = stamp
    }
}

/// What the parent made of a pushed change, so that the child can update its objects.
///
/// A parent reports only the exceptions: every pushed change it does not mention was stored as
/// pushed (an insert or update with the pushed values and version, a delete as removed).
package enum AcceptedChange: Sendable {
    /// Stored with these values (equal to the pushed ones unless a merge policy combined them).
    case stored(RowSnapshot)
    /// The row is gone (deleted here or by the merge policy).
    case removed
}
