import Synchronization

/// Refuses changes that would give two rows the same values for a uniqueness constraint, as this
/// context sees the rows (its own unsaved changes, its ancestors', the store). Checked when a
/// context accepts a child's save, so that a duplicate never travels up to fail the writer's
/// transaction (which would hold back every other job's changes).
///
/// Each incoming key is looked up, not searched for: in the pending segments' ``UniqueKeyIndex``es
/// nearest level first, then in the store's unique index. And the segments a context accepted
/// were checked against each other then (see ``ChangeSegment/keysChecked``): when they move up
/// together, only the rows new to the check are compared with the rest of the save. The cost
/// follows the size of the save, not the number of rows waiting for the next flush.
struct UniquenessCheck {
    let context: ManagedObjectContext
    /// False to leave out the rows on disk (see `ManagedObjectContext.accept`).
    var includesStore = true
    /// True when the changes checked are the context's own unsaved ones (the writer's flush,
    /// settled and checked again: see `UniquenessResolution`): its objects and pending rows are
    /// then the changes themselves, and a row the settling dropped must not hold a key there.
    var changesArePending = false

    /// The newest incoming change of a row, the segment it is in, and whether that segment's keys
    /// were checked already.
    private struct Claim {
        let id: ObjectID
        let change: RowChange
        /// The segment's position in the incoming changes.
        let segment: Int
        let keysChecked: Bool
    }

    /// Checks `changes`, the changes about to be applied (the newest change of an ID counts).
    func verify(_ changes: ChangeSet) throws {
        let conflicts = try conflicts(in: changes)
        guard conflicts.isEmpty else {
            throw StoreError(.mergeConflict, "uniqueness constraint violated", conflicts: conflicts)
        }
    }

    /// The conflicts of `changes` (see `verify`): each names the incoming row that claims a key
    /// and the row that holds it.
    func conflicts(in changes: ChangeSet) throws -> [MergeConflict] {
        // The same levels, nearest first, that a fetch reads.
        var overlay = context.pendingOverlay()
        if changesArePending { overlay = PendingOverlay(ownObjects: [:], levels: Array(overlay.levels.dropFirst())) }
        let levels = overlay.levels
        // Rows of checked segments need a look only if something else may hold their keys: the
        // disk, this context's objects, pending rows. (A writer that has written everything
        // before receives a flush's rows with nothing to compare them with.)
        let hasOthers = includesStore || !context.changedObjects.isEmpty || levels.contains { $0.hasUniquenessConstraints }
        // A save touches a handful of entities, usually one: found by identity, the last one
        // first, not hashed for every row. Each gets room for every row from the start, or a save
        // of thousands of rows copies its claims a dozen times as the array grows.
        var byEntity: [(entity: EntityDescription, claims: [Claim])] = []
        var last = 0
        let rowCount = changes.count
        // An ID is in one segment of a change set, usually. Several segments are checked by
        // primary key, which the store hands out across entities.
        var seen = Set<Int64>()
        let mayRepeat = changes.segments.count > 1
        for (position, segment) in changes.segments.enumerated() where segment.hasUniquenessConstraints {
            if segment.keysChecked && !hasOthers { continue }
            for row in segment.rows where row.change.entity.hasUniquenessConstraints {
                if mayRepeat {
                    // Skipping checked segments leaves `seen` without their rows: ask them.
                    let isNewest = hasOthers ? seen.insert(row.id.primaryKey).inserted : changes.isNewest(row.id, at: position)
                    if !isNewest { continue }
                }
                let entity = row.change.entity
                if last == byEntity.count || byEntity[last].entity !== entity {
                    if let index = byEntity.firstIndex(where: { $0.entity === entity }) {
                        last = index
                    } else {
                        last = byEntity.count
                        byEntity.append((entity, Self.emptyArray(capacity: rowCount)))
                    }
                }
                byEntity[last].claims.append(Claim(id: row.id, change: row.change, segment: position, keysChecked: segment.keysChecked))
            }
        }
        var conflicts: [MergeConflict] = []
        for (entity, claims) in byEntity {
            for constraint in entity.uniquenessConstraints.indices {
                conflicts += try check(constraint, of: entity, claims, in: changes, overlay: overlay)
            }
        }
        return conflicts
    }

    private func check(
        _ constraint: Int, of entity: EntityDescription, _ claims: [Claim], in changes: ChangeSet, overlay: PendingOverlay
    ) throws -> [MergeConflict] {
        let names = entity.uniquenessConstraints[constraint]
        func conflict(_ id: ObjectID, with holder: ObjectID) -> MergeConflict {
            MergeConflict(objectID: id, reason: .uniqueness(properties: names, existing: holder), changedProperties: names)
        }
        // A row's nearest change decides its key: a row found at some level holds the key only if
        // no nearer level (nor the incoming changes) changes it.
        let levels = overlay.levels
        func isChangedNearer(than depth: Int, _ id: ObjectID) -> Bool {
            changes[id] != nil || overlay.hidden(id, above: depth)
        }
        // The context's own changed objects are the nearest level; a context that accepts saves
        // rarely has many.
        var ownKeys: [[StoreValue]: ObjectID] = [:]
        for (id, object) in context.changedObjects where !changesArePending && object.entity === entity && changes[id] == nil {
            if let change = object.pendingChange(), change.kind != .delete,
                let key = UniqueKeyIndex.Key(row: change.values, constraint: constraint, of: entity)
            {
                ownKeys[key.values] = id
            }
        }

        // Segment by segment, each looked up for the claims still open: a segment is then taken
        // out of its array once, not once per claim. `keys` and `claimants` are the claims that
        // hold a key, side by side.
        var keys: [UniqueKeyIndex.Key] = Self.emptyArray(capacity: claims.count)
        var claimants: [Claim] = Self.emptyArray(capacity: claims.count)
        for claim in claims where claim.change.kind != .delete {
            guard let key = UniqueKeyIndex.Key(row: claim.change.values, constraint: constraint, of: entity) else { continue }
            keys.append(key)
            claimants.append(claim)
        }
        var holders = [ObjectID?](repeating: nil, count: keys.count)
        // Two incoming rows with one key: one of them at least is new to the check. The one with
        // the higher primary key is reported (once).
        let unchecked = claimants.indices.filter { !claimants[$0].keysChecked }
        if !unchecked.isEmpty {
            for (position, segment) in changes.segments.enumerated() where segment.hasUniquenessConstraints {
                // A claimant's own segment holds its key once (the claimant's), unless two of its
                // rows have keys of one hash: then, and only then, it is worth a look-up there.
                let ownSegmentHasOthers = segment.uniqueKeys?.hasSharedHashes ?? false
                for index in unchecked where holders[index] == nil {
                    if claimants[index].segment == position && !ownSegmentHasOthers { continue }
                    let claimant = claimants[index].id
                    // The claimant's own row is left out: it holds its key, and is no conflict.
                    segment.forEachRow(holding: keys[index], except: claimant.primaryKey) { other in
                        guard holders[index] == nil, changes.isNewest(other.id, at: position) else { return }
                        if !segment.keysChecked && other.id.primaryKey > claimant.primaryKey { return }
                        holders[index] = other.id
                    }
                }
            }
        }
        if !ownKeys.isEmpty {
            for index in keys.indices where holders[index] == nil {
                holders[index] = ownKeys[keys[index].values]
            }
        }
        // Nearest level first: a claim whose key a level holds is settled there.
        for (depth, level) in levels.enumerated() {
            for segment in level.segments where segment.hasUniquenessConstraints {
                for index in keys.indices where holders[index] == nil {
                    segment.forEachRow(holding: keys[index]) { row in
                        if holders[index] == nil && !isChangedNearer(than: depth, row.id) { holders[index] = row.id }
                    }
                }
            }
        }
        var conflicts: [MergeConflict] = []
        // The keys no pending row holds, one after the other.
        var lookInStore: [StoreValue] = Self.emptyArray(capacity: keys.count * names.count)
        for index in keys.indices {
            if let holder = holders[index] {
                conflicts.append(conflict(claimants[index].id, with: holder))
            } else {
                keys[index].appendValues(to: &lookInStore)
            }
        }
        guard includesStore, !lookInStore.isEmpty else { return conflicts }
        let positions = entity.uniqueKeyPositions[constraint]
        for (holder, values) in try context.store.fetchKeys(lookInStore, of: positions, entity: entity, on: context.storeReader)
        where !isChangedNearer(than: levels.count, holder) {
            // The incoming row that claims the key the store's row holds.
            guard let key = UniqueKeyIndex.Key(values, constraint: constraint, of: entity) else { continue }
            for (position, segment) in changes.segments.enumerated() where segment.hasUniquenessConstraints {
                segment.forEachRow(holding: key) { row in
                    if changes.isNewest(row.id, at: position) { conflicts.append(conflict(row.id, with: holder)) }
                }
            }
        }
        return conflicts
    }

    private static func emptyArray<Element>(capacity: Int) -> [Element] {
        var array: [Element] = []
        array.reserveCapacity(capacity)
        return array
    }
}
