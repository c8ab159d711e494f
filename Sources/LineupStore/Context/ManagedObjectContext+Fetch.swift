import Synchronization

extension ManagedObjectContext {
    /// The objects matching `request`, as this context sees them (see ``FetchRequest``).
    public func fetch<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> [Object] {
        assertOnQueue()
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
        assertOnQueue()
        return try fetchRows(request, entity: entity(of: Object.self), keysOnly: true).map(\.0)
    }

    /// The number of objects matching `request` (ignoring its limit and offset when nil and 0).
    public func count<Object: ManagedObject>(for request: FetchRequest<Object>) throws -> Int {
        assertOnQueue()
        let entity = try entity(of: Object.self)
        if !request.includesPendingChanges || pendingOverlay(for: entity).isEmpty,
            request.fetchLimit == nil, request.fetchOffset == 0
        {
            var arguments: [StoreValue] = []
            let condition = request.predicate.node.sql(&arguments)
            return try store.count(entity: entity, condition: condition, arguments: arguments)
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

    /// The unsaved changes of `entity` in this context and its ancestors, nearest first: a nearer
    /// change of a row hides a farther one. Read nearest first (then the store), so that a row
    /// moving up the stack meanwhile is seen at one level or the next.
    func pendingOverlay(for entity: EntityDescription) -> [ObjectID: RowChange] {
        var overlay: [ObjectID: RowChange] = [:]
        for (id, object) in changedObjects where object.entity === entity {
            if let change = object.pendingChange() { overlay[id] = change }
        }
        for (id, change) in childChanges where change.entity === entity && overlay[id] == nil {
            overlay[id] = change
        }
        for ancestor in ancestors {
            for (id, change) in ancestor.publishedChanges() where change.entity === entity && overlay[id] == nil {
                overlay[id] = change
            }
        }
        return overlay
    }

    /// The matching rows, sorted, with offset and limit applied. With `keysOnly`, rows from the
    /// store carry only their sort values (the rest are NULL).
    func fetchRows<Object>(
        _ request: FetchRequest<Object>, entity: EntityDescription, keysOnly: Bool
    ) throws -> [(ObjectID, RowSnapshot)] {
        let overlay = request.includesPendingChanges ? pendingOverlay(for: entity) : [:]
        let sorts = request.sortDescriptors.map { (entity.propertyIndex($0.property), $0.ascending) }
        var arguments: [StoreValue] = []
        let condition = request.predicate.node.sql(&arguments)
        var query = StoreQuery(
            entity: entity, condition: condition, arguments: arguments, sorts: sorts,
            limit: request.fetchLimit, offset: request.fetchOffset,
            columns: keysOnly ? .sortKeys : .all)
        if overlay.isEmpty {
            return try store.fetchRows(query)
        }
        // The overlay can hide at most overlay.count of the store's rows: fetch that many more.
        query.limit = request.fetchLimit.map { $0 + request.fetchOffset + overlay.count }
        query.offset = 0
        var rows = try store.fetchRows(query).filter { overlay[$0.0] == nil }
        for (id, change) in overlay
        where change.kind != .delete && request.predicate.node.evaluate(change.values, entity: entity) {
            rows.append((id, RowSnapshot(values: change.values, stamp: change.stamp)))
        }
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

/// The faults of one fetch batch: the first one used loads them all.
final class FaultBatch {
    var ids: [ObjectID] = []
}
