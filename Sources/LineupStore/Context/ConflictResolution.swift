/// The one mechanism that both a parent context and the store use to accept a child's changes:
/// find version conflicts against the parent's current rows, and settle each by the merge policy
/// that the context which made the change set (``RowChange/mergePolicy``), else by the pushing
/// context's (`policy`): those under `.error` are thrown, the others resolved.
struct ConflictResolution {
    /// The changes to apply: the pushed ones, each conflict replaced by its resolution or left out.
    private(set) var toApply: ChangeSegment
    /// The pushed changes that were not stored as pushed (see ``AcceptedChange``): only conflicts
    /// can be, so a save without conflicts costs no per-row result.
    private(set) var exceptions: [ObjectID: AcceptedChange] = [:]

    /// `current` gives the parent's row for an updated or deleted ID (nil when it is gone).
    init(
        _ changes: ChangeSegment, current: [ObjectID: RowSnapshot], policy: MergePolicy,
        nextStamp: () -> Int64
    ) throws {
        toApply = changes
        // Inserts have no earlier version to conflict with.
        guard !changes.insertsOnly else { return }
        // The conflicts that a change's policy, `.error`, does not settle.
        var unresolvable: [MergeConflict] = []
        var conflicting: [ObjectID: RowSnapshot?] = [:]
        for entry in changes.rows where entry.change.kind != .insert {
            let (id, change) = (entry.id, entry.change)
            let row = current[id]
            if let row, row.stamp == change.baseStamp { continue }
            if (change.mergePolicy ?? policy) == .error {
                let reason: MergeConflict.Reason =
                    row.map { .newerVersion(expected: change.baseStamp, found: $0.stamp) } ?? .rowDeleted
                unresolvable.append(
                    MergeConflict(
                        objectID: id, reason: reason,
                        changedProperties: change.changedMask.indexes.map { change.entity.properties[$0].name }))
            }
            conflicting[id] = .some(row)
        }
        guard !conflicting.isEmpty else { return }
        if !unresolvable.isEmpty {
            throw StoreError(
                .mergeConflict, "\(unresolvable.count) conflicting object(s)",
                conflicts: unresolvable.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey })
        }
        var resolved = ChangeSegment.Builder(capacity: changes.count)
        for entry in changes.rows {
            let (id, change) = (entry.id, entry.change)
            // The parent's row of a conflicting change (nil when it is gone).
            guard let row = conflicting[id] else {
                resolved.append(change, for: id)
                continue
            }
            if var resolution = (change.mergePolicy ?? policy).resolve(change, current: row) {
                if resolution.values != change.values {
                    resolution.stamp = nextStamp()
                    exceptions[id] = .stored(RowSnapshot(values: resolution.values, stamp: resolution.stamp))
                }
                resolved.append(resolution, for: id)
            } else {
                exceptions[id] = row.map { .stored($0) } ?? .removed
            }
        }
        toApply = resolved.build()
    }
}
