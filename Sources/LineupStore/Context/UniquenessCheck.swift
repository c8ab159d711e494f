import Synchronization

/// Refuses changes that would give two rows the same values for a uniqueness constraint, as this
/// context sees the rows (its own unsaved changes, its ancestors', the store). Checked when a
/// context accepts a child's save, so that a duplicate never travels up to fail the writer's
/// transaction (which would hold back every other job's changes).
struct UniquenessCheck {
    let context: ManagedObjectContext

    func verify(_ changes: [(ObjectID, RowChange)]) throws {
        var byEntity: [EntityDescription: [(ObjectID, RowChange)]] = [:]
        for (id, change) in changes where !change.entity.uniquenessConstraints.isEmpty {
            byEntity[change.entity, default: []].append((id, change))
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
        for (id, change) in context.childChanges where change.entity === entity {
            consider(id, change)
        }
        for ancestor in context.ancestors {
            ancestor.published.withLock { published in
                for (id, change) in published where change.entity === entity {
                    consider(id, change)
                }
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
