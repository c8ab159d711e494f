import Synchronization

/// Refuses changes that would give two rows the same values for a uniqueness constraint, as this
/// context sees the rows (its own unsaved changes, its ancestors', the store). Checked when a
/// context accepts a child's save, so that a duplicate never travels up to fail the writer's
/// transaction (which would hold back every other job's changes).
struct UniquenessCheck {
    let context: ManagedObjectContext

    /// Checks `changes`, the changes about to be applied (the newest change of an ID counts).
    func verify(_ changes: ChangeSet) throws {
        var byEntity: [EntityDescription: [(ObjectID, RowChange)]] = [:]
        var seen = Set<ObjectID>()
        for segment in changes.segments where segment.hasUniquenessConstraints {
            for row in segment.rows where row.change.entity.hasUniquenessConstraints {
                guard seen.insert(row.id).inserted else { continue }
                byEntity[row.change.entity, default: []].append((row.id, row.change))
            }
        }
        var conflicts: [MergeConflict] = []
        for (entity, changes) in byEntity {
            for constraint in entity.uniquenessConstraints {
                conflicts += try check(constraint, of: entity, changes)
            }
        }
        guard conflicts.isEmpty else {
            throw StoreError(.mergeConflict, "uniqueness constraint violated", conflicts: conflicts)
        }
    }

    private func check(
        _ constraint: [String], of entity: EntityDescription, _ changes: [(ObjectID, RowChange)]
    ) throws -> [MergeConflict] {
        let indexes = constraint.map { entity.index(ofProperty: $0)! }
        func key(_ values: [StoreValue]) -> [StoreValue]? {
            let key = indexes.map { values[$0] }
            return key.contains(where: \.isNull) ? nil : key  // NULLs are distinct, as in SQL.
        }
        // The keys the incoming changes claim, and the rows they move away from.
        var claimed: [[StoreValue]: ObjectID] = [:]
        var conflicts: [MergeConflict] = []
        var touched = Set<ObjectID>()
        for (id, change) in changes {
            touched.insert(id)
            guard change.kind != .delete, let key = key(change.values) else { continue }
            if let other = claimed[key], other != id {
                conflicts.append(MergeConflict(objectID: id, reason: .uniqueness(properties: constraint, existing: other), changedProperties: constraint))
            }
            claimed[key] = id
        }
        guard !claimed.isEmpty else { return conflicts }
        // Rows already holding those keys in this context's view: overlays nearest first, then the store.
        var decided = touched
        var holders: [[StoreValue]: ObjectID] = [:]
        func consider(_ id: ObjectID, _ change: RowChange) {
            guard decided.insert(id).inserted else { return }
            if change.kind != .delete, let key = key(change.values), claimed[key] != nil {
                holders[key] = id
            }
        }
        for (id, object) in context.changedObjects where object.entity === entity {
            if let change = object.pendingChange() { consider(id, change) }
        }
        // Segments without constrained entities cannot hold a key: skip them unread.
        for segment in context.childChanges.segments where segment.hasUniquenessConstraints {
            for row in segment.rows where row.change.entity === entity { consider(row.id, row.change) }
        }
        for ancestor in context.ancestors {
            for segment in ancestor.publishedChanges().segments where segment.hasUniquenessConstraints {
                for row in segment.rows where row.change.entity === entity { consider(row.id, row.change) }
            }
        }
        for (id, values) in try context.store.fetchKeys(Array(claimed.keys), of: indexes, entity: entity)
        where !decided.contains(id) {
            if let key = key(values), holders[key] == nil { holders[key] = id }
        }
        for (key, id) in claimed {
            if let holder = holders[key], holder != id {
                conflicts.append(
                    MergeConflict(objectID: id, reason: .uniqueness(properties: constraint, existing: holder), changedProperties: constraint))
            }
        }
        return conflicts
    }
}
