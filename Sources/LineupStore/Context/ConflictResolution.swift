/// The one mechanism that both a parent context and the store use to accept a child's changes:
/// find version conflicts against the parent's current rows, throw them under `.error`, resolve
/// them under the other policies.
struct ConflictResolution {
    /// The changes to apply, and what to tell the child about every change it pushed.
    var toApply: [(ObjectID, RowChange)] = []
    var results: [ObjectID: AcceptedChange] = [:]

    /// `current` gives the parent's row for an updated or deleted ID (nil when it is gone).
    init(
        _ changes: ChangeSet, current: [ObjectID: RowSnapshot], policy: MergePolicy,
        nextStamp: () -> Int64
    ) throws {
        var conflicts: [MergeConflict] = []
        var conflicting: [(ObjectID, RowChange, RowSnapshot?)] = []
        toApply.reserveCapacity(changes.count)
        for (id, change) in changes {
            guard change.kind != .insert else {
                toApply.append((id, change))
                continue
            }
            let row = current[id]
            if let row, row.stamp == change.baseStamp {
                toApply.append((id, change))
                continue
            }
            let reason: MergeConflict.Reason =
                row.map { .newerVersion(expected: change.baseStamp, found: $0.stamp) } ?? .rowDeleted
            conflicts.append(
                MergeConflict(
                    objectID: id, reason: reason,
                    changedProperties: change.changedMask.indexes.map { change.entity.properties[$0].name }))
            conflicting.append((id, change, row))
        }
        if !conflicts.isEmpty && policy == .error {
            throw StoreError(
                .mergeConflict, "\(conflicts.count) conflicting object(s)",
                conflicts: conflicts.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey })
        }
        for (id, change, row) in conflicting {
            if var resolved = policy.resolve(change, current: row) {
                if resolved.values != change.values {
                    resolved.stamp = nextStamp()
                }
                toApply.append((id, resolved))
            } else {
                results[id] = row.map { .stored($0) } ?? .removed
            }
        }
        for (id, change) in toApply {
            results[id] = change.kind == .delete ? .removed : .stored(RowSnapshot(values: change.values, stamp: change.stamp))
        }
    }
}
