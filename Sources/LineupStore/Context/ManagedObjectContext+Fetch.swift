import Synchronization

extension ManagedObjectContext {
    /// The objects matching `request`, as this context sees them (see ``FetchRequest``).
    public func fetch<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> [Object] {
        preconditionOnQueue()
        let entity = try entity(of: Object.self)
        let batchSize = request.fetchBatchSize
        let rows = try fetchRows(request, entity: entity, keysOnly: batchSize > 0)
        guard batchSize > 0 else {
            return rows.map { register(id: $0.0, entity: entity, row: $0.1) as! Object }
        }
        var objects: [Object] = []
        objects.reserveCapacity(rows.count)
        var batch = FaultBatch()
        for (id, _) in rows {
            let object = self.object(with: id) as! Object
            if object.isFault {
                batch.ids.append(id)
                faultBatches[id] = batch
                if batch.ids.count == batchSize { batch = FaultBatch() }
            }
            objects.append(object)
        }
        return objects
    }

    /// The IDs of the objects matching `request`.
    public func fetchObjectIDs<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> [ObjectID] {
        preconditionOnQueue()
        return try fetchRows(request, entity: entity(of: Object.self), keysOnly: true).map(\.0)
    }

    /// The number of objects matching `request` (ignoring its limit and offset when nil and 0).
    public func count<Object: ManagedObject>(for request: FetchRequest<Object>) throws -> Int {
        preconditionOnQueue()
        let entity = try entity(of: Object.self)
        var request = request
        request.predicate = FetchPredicate(
            try resolvingRelationships(request.predicate.node, includesPendingChanges: request.includesPendingChanges))
        if !request.includesPendingChanges || pendingOverlay().isEmpty(for: entity),
            request.fetchLimit == nil, request.fetchOffset == 0
        {
            return try store.count(entity: entity, matching: request.predicate.node, on: storeReader)
        }
        return try fetchRows(request, entity: entity, keysOnly: true).count
    }

    // MARK: - Internal

    func entity(of type: ManagedObject.Type) throws -> EntityDescription {
        guard let entity = model.entity(for: type) else {
            preconditionFailure("\(type) is not an entity of this context's model")
        }
        return entity
    }

    /// The unsaved changes of this context and its ancestors, nearest level first: a nearer change
    /// of a row hides a farther one. The levels are taken nearest first (the store is read after
    /// them), so that a row moving up the stack meanwhile is seen at one level or the next.
    func pendingOverlay() -> PendingOverlay {
        PendingOverlay(ownObjects: changedObjects, levels: [childChanges] + ancestors.map { $0.publishedChanges() })
    }

    /// The matching rows, sorted, with offset and limit applied. With `keysOnly`, rows from the
    /// store carry only their sort values (the rest are NULL).
    func fetchRows<Object>(
        _ request: FetchRequest<Object>, entity: EntityDescription, keysOnly: Bool
    ) throws -> [(ObjectID, RowSnapshot)] {
        var request = request
        request.predicate = FetchPredicate(
            try resolvingRelationships(request.predicate.node, includesPendingChanges: request.includesPendingChanges))
        let sorts = request.sortDescriptors.map { (entity.propertyIndex($0.property), $0.ascending) }
        var query = StoreQuery(
            entity: entity, predicate: request.predicate.node, sorts: sorts,
            limit: request.fetchLimit, offset: request.fetchOffset,
            columns: keysOnly ? .sortKeys : .all)
        guard request.includesPendingChanges else {
            return try store.fetchRows(query, on: storeReader)
        }
        // The pending rows that match, each row once (its nearest change), tested as they are
        // walked: no copy of the pending changes is made. A fetch by natural key (all of a
        // uniqueness constraint's properties pinned, as an upsert asks) looks its candidates up
        // instead of walking every pending row; it then has no count of the pending rows to
        // widen a limit with, so a fetch with a limit walks.
        let overlay = pendingOverlay()
        var pendingCount = 0
        var matches: [(ObjectID, RowSnapshot)] = []
        func consider(_ id: ObjectID, _ change: RowChange) {
            pendingCount += 1
            if change.kind != .delete && request.predicate.node.evaluate(change.values, primaryKey: id.primaryKey, entity: entity) {
                matches.append((id, RowSnapshot(values: change.values, stamp: change.stamp)))
            }
        }
        let lookedUp =
            request.fetchLimit == nil
            && overlay.forEachVisibleChange(of: entity, pinnedBy: request.predicate.node, consider)
        if !lookedUp {
            overlay.forEachVisibleChange(of: entity, consider)
        }
        if lookedUp ? overlay.isEmpty : pendingCount == 0 {
            return try store.fetchRows(query, on: storeReader)
        }
        // The overlay can hide at most pendingCount of the store's rows: fetch that many more.
        query.limit = request.fetchLimit.map { $0 + request.fetchOffset + pendingCount }
        query.offset = 0
        var rows = try store.fetchRows(query, on: storeReader).filter { overlay.change(for: $0.0) == nil }
        rows += matches
        rows.sort { lhs, rhs in
            for (index, ascending) in sorts {
                let a = lhs.1.values[index]
                let b = rhs.1.values[index]
                if a.sqlEquals(b) { continue }
                return ascending ? a < b : b < a
            }
            return lhs.0.primaryKey < rhs.0.primaryKey
        }
        let start = min(request.fetchOffset, rows.count)
        let end = request.fetchLimit.map { min(rows.count, start + $0) } ?? rows.count
        return Array(rows[start..<end])
    }
}

/// The unsaved changes above a fetch, looked up in place: the fetching context's own changed
/// objects, then its child changes and each ancestor's published changes, nearest first.
struct PendingOverlay {
    let ownObjects: [ObjectID: ManagedObject]
    let levels: [ChangeSet]

    /// The nearest change of `id`, if any level has one.
    func change(for id: ObjectID) -> RowChange? {
        if let object = ownObjects[id], let change = object.pendingChange() { return change }
        for level in levels {
            if let change = level[id] { return change }
        }
        return nil
    }

    /// True when there are no unsaved changes at all.
    var isEmpty: Bool {
        ownObjects.isEmpty && levels.allSatisfy(\.isEmpty)
    }

    /// True when no level has a change of `entity`.
    func isEmpty(for entity: EntityDescription) -> Bool {
        var empty = true
        forEachVisibleChange(of: entity) { _, _ in empty = false }
        return empty
    }

    /// Calls `body` with the nearest change of every row of `entity` that has one.
    func forEachVisibleChange(of entity: EntityDescription, _ body: (ObjectID, RowChange) -> Void) {
        for (id, object) in ownObjects where object.entity === entity {
            if let change = object.pendingChange() { body(id, change) }
        }
        for (depth, level) in levels.enumerated() {
            for (id, change) in level where change.entity === entity && !hidden(id, above: depth) {
                body(id, change)
            }
        }
    }

    /// Calls `body` with the nearest change of every row of `entity` that may match `predicate`,
    /// when the predicate pins every property of one of the entity's uniqueness constraints to a
    /// few values: the rows holding those keys are looked up in each segment's
    /// ``UniqueKeyIndex`` (the own objects, few, are all visited). Returns false, having called
    /// nothing, when no constraint is pinned. `body` must still test the predicate.
    func forEachVisibleChange(
        of entity: EntityDescription, pinnedBy predicate: PredicateNode, _ body: (ObjectID, RowChange) -> Void
    ) -> Bool {
        guard let keys = Self.pinnedKeys(of: entity, by: predicate) else { return false }
        for (id, object) in ownObjects where object.entity === entity {
            if let change = object.pendingChange() { body(id, change) }
        }
        for (depth, level) in levels.enumerated() {
            for segment in level.segments where segment.hasUniquenessConstraints {
                for key in keys {
                    segment.forEachRow(holding: key) { row in
                        if !hidden(row.id, above: depth) { body(row.id, row.change) }
                    }
                }
            }
        }
        return true
    }

    /// Past this many keys, a look-up per key and segment is no longer cheaper than a walk.
    static let pinnedKeyLimit = 50_000

    /// The first uniqueness constraint of `entity` whose every property `predicate` pins, and
    /// the keys it allows (each once).
    private static func pinnedKeys(of entity: EntityDescription, by predicate: PredicateNode) -> [UniqueKeyIndex.Key]? {
        constraints: for (constraint, names) in entity.uniquenessConstraints.enumerated() {
            var keys: [[StoreValue]] = [[]]
            for name in names {
                guard let pinned = predicate.pinnedValues(of: name) else { continue constraints }
                var distinct = Set<StoreValue>()
                let values = pinned.filter { distinct.insert($0.comparisonKey).inserted }
                guard keys.count * values.count <= pinnedKeyLimit else { continue constraints }
                keys = keys.flatMap { prefix in values.map { prefix + [$0] } }
            }
            return keys.compactMap { UniqueKeyIndex.Key($0, constraint: constraint, of: entity) }
        }
        return nil
    }

    /// True when a level nearer than `depth` (or the own objects) has a change of `id`.
    func hidden(_ id: ObjectID, above depth: Int) -> Bool {
        if let object = ownObjects[id], object.pendingChange() != nil { return true }
        for level in levels[..<depth] where level[id] != nil {
            return true
        }
        return false
    }
}

/// The faults of one fetch batch: the first one used loads them all.
final class FaultBatch {
    var ids: [ObjectID] = []
}
