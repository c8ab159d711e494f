import Foundation

extension ManagedObjectContext {
    /// Calls `body` with the matching objects, `batchSize` at a time, in the request's order,
    /// keeping memory flat however many rows match: the rows are read with one cursor on one WAL
    /// snapshot, and each batch's objects are forgotten by the context once `body` returns (so
    /// `body` must not keep them). Objects with unsaved changes are the context's own and are not
    /// forgotten.
    ///
    /// The cursor holds a connection until the last batch. On SQLite, every enumeration opens a
    /// connection of its own for it. On PostgreSQL, a task context's enumeration takes one of the
    /// store's pooled readers, and may wait for one that other tasks hold; the main context and
    /// the writer never do: they open a connection of their own for the cursor.
    public func enumerate<Object: ManagedObject>(
        _ request: FetchRequest<Object>, batchSize: Int, _ body: ([Object]) throws -> Void
    ) throws {
        let entity = try entity(of: Object.self)
        try enumerateRows(request, entity: entity, batchSize: batchSize) { rows in
            let objects = rows.map { register(id: $0.0, entity: entity, row: $0.1) as! Object }
            try body(objects)
            for (id, _) in rows where changedObjects[id] == nil {
                registry[id] = nil
            }
        }
    }

    /// Like ``enumerate(_:batchSize:_:)`` but hands out the values of those objects (one per
    /// property, in the entity's property order) without making objects, for bulk reads such as
    /// exports.
    ///
    /// These are the objects' values, not Core Data's dictionary results: dictionary results read
    /// the store only, so an export of them would silently miss the rows that jobs saved but the
    /// daemon has not flushed yet. Here the request's `includesPendingChanges` decides, as for
    /// ``fetch(_:)``: by default the unsaved changes of this context and its ancestors are seen;
    /// set it to false to read the store only. (``aggregate(_:)`` reads the store only, as Core
    /// Data's dictionary results do.)
    public func enumerateObjectValues<Object: ManagedObject>(
        _ request: FetchRequest<Object>, batchSize: Int, _ body: ([(ObjectID, [StoreValue])]) throws -> Void
    ) throws {
        try enumerateRows(request, entity: entity(of: Object.self), batchSize: batchSize) { rows in
            try body(rows.map { ($0.0, $0.1.values) })
        }
    }

    private func enumerateRows<Object>(
        _ request: FetchRequest<Object>, entity: EntityDescription, batchSize: Int,
        _ body: ([(ObjectID, RowSnapshot)]) throws -> Void
    ) throws {
        preconditionOnQueue()
        precondition(batchSize > 0, "batchSize must be positive")
        var request = request
        request.predicate = FetchPredicate(
            try resolvingRelationships(request.predicate.node, includesPendingChanges: request.includesPendingChanges))
        if request.includesPendingChanges && !pendingOverlay().isEmpty(for: entity) {
            // Unsaved changes must be merged into the order: fetch, then hand out in batches.
            let rows = try fetchRows(request, entity: entity, keysOnly: false)
            for batch in rows.chunked(batchSize) { try body(Array(batch)) }
            return
        }
        let query = StoreQuery(
            entity: entity, predicate: request.predicate.node,
            sorts: request.sortDescriptors.map { (entity.propertyIndex($0.property), $0.ascending) },
            limit: request.fetchLimit, offset: request.fetchOffset, columns: .all)
        // The store steps its cursor on this thread and calls `body` between the steps: the
        // batches are used on this context's queue with no thread or hand-over between them.
        try store.enumerateRows(query, batchSize: batchSize, on: storeReader.forLongReads, body)
    }
}
