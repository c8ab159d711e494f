extension ManagedObjectContext {
    /// Runs a batch delete in the store now, as one transaction, and returns what it deleted.
    ///
    /// Unlike Core Data, which leaves every context showing the deleted rows until you merge,
    /// the contexts from this one up to the writer take the outcome before this returns: their
    /// objects of deleted rows become deleted (as after a merged save; see
    /// ``mergeChanges(fromContextDidSave:)``), and unsaved changes of those rows, their own and
    /// those saved into them by children, are dropped, so that no later save or flush pushes a
    /// change over a row that is gone. Each of these contexts' queues is held meanwhile (waits go
    /// upward only, as a save's do). Other contexts merge the IDs of the result with
    /// ``mergeChanges(fromRemoteContextSave:into:)`` (ask for `.objectIDs`).
    ///
    /// The request reads the store, not the unsaved changes: a row inserted but not yet flushed
    /// is not deleted.
    public func execute<Object: ManagedObject>(_ request: BatchDeleteRequest<Object>) throws -> BatchResult {
        try executeBatch(request.predicate, assignments: nil, resultType: request.resultType)
    }

    /// Runs a batch update in the store now, as one transaction, and returns what it updated.
    ///
    /// The contexts from this one up to the writer take the new rows before this returns, as
    /// after a merged save: objects without changes take the new values; objects with changes
    /// keep theirs on top of the new values and are based on the new version, as are the unsaved
    /// changes that children saved into these contexts. Other contexts merge the result's IDs with
    /// ``mergeChanges(fromRemoteContextSave:into:)``.
    public func execute<Object: ManagedObject>(_ request: BatchUpdateRequest<Object>) throws -> BatchResult {
        let entity = try entity(of: Object.self)
        let assignments = request.assignments.map { (property: entity.propertyIndex($0.property), value: $0.value) }
        // As a save does (see `checkStorable`): SQLite would write the NaN as NULL.
        if let nan = request.assignments.first(where: { if case .real(let number) = $0.value { number.isNaN } else { false } }) {
            throw StoreError(.validationFailed, "\(entity.name): `\(nan.property)` is set to NaN, which the store cannot keep (SQLite reads it back as NULL)")
        }
        return try executeBatch(request.predicate, assignments: assignments, resultType: request.resultType)
    }

    /// Applies a batch request's outcome, known by IDs only, to each of `contexts`, as Core
    /// Data's `mergeChanges(fromRemoteContextSave:into:)` does: objects of deleted rows become
    /// deleted (as after ``mergeChanges(fromContextDidSave:)``), objects of updated rows without
    /// changes are refreshed (their next use loads the new values). The context's next
    /// ``ObjectsDidChange`` lists both: the deleted objects, and the refreshed ones among its
    /// `refreshedObjectIDs`. An object of an updated row
    /// with unsaved changes keeps them, based on the version it had: its save meets a conflict,
    /// which its merge policy settles.
    ///
    /// Runs on each context's queue and waits for it, except for a context below the caller's
    /// own (a parent never waits for its children: the merge is queued there and runs later).
    public static func mergeChanges(fromRemoteContextSave result: BatchResult, into contexts: [ManagedObjectContext]) {
        let caller = CurrentContext.context
        for context in contexts {
            if let caller, context !== caller, context.ancestors.contains(where: { $0 === caller }) {
                context.perform { context.mergeRemoteChanges(result) }
            } else {
                context.performAndWait { context.mergeRemoteChanges(result) }
            }
        }
    }

    // MARK: - Internal

    private func executeBatch<Object>(
        _ predicate: FetchPredicate<Object>, assignments: [(property: Int, value: StoreValue)]?,
        resultType: BatchResultType
    ) throws -> BatchResult {
        preconditionOnQueue()
        let entity = try entity(of: Object.self)
        let outcome = try runHoldingAncestors(watching: []) { watched in
            writeGate.beginWrite()
            defer { writeGate.endWrite() }
            return try store.executeBatch(
                entity: entity, matching: predicate.node, assignments: assignments,
                watched: watched.filter { $0.entityName == entity.name },
                collectingIDs: resultType == .objectIDs)
        }
        let ids = outcome.affectedIDs ?? []
        return BatchResult(
            count: outcome.count, deletedObjectIDs: assignments == nil ? ids : [],
            updatedObjectIDs: assignments == nil ? [] : ids)
    }

    /// Runs `statement` on the writer's queue while this context and every ancestor hold their
    /// queues, then lets each take the outcome, the writer first, so that none of them can save a
    /// change of a row the statement touched in between. `watching` are the rows the contexts
    /// below hold.
    private func runHoldingAncestors(
        watching: [ObjectID], _ statement: ([ObjectID]) throws -> BatchOutcome
    ) throws -> BatchOutcome {
        let watched = watching + heldObjectIDs()
        let outcome: BatchOutcome
        if let parent = parentContext {
            outcome = try parent.performAndWait { try parent.runHoldingAncestors(watching: watched, statement) }
        } else {
            outcome = try statement(watched)
        }
        if !outcome.watchedRows.isEmpty {
            mergeChanges(fromContextDidSave: ContextDidSave(rows: outcome.watchedRows))
        }
        return outcome
    }

    /// The rows this context holds objects or unsaved changes of.
    private func heldObjectIDs() -> [ObjectID] {
        var ids = Array(registry.keys)
        ids += changedObjects.keys.filter { registry[$0] == nil }
        for (id, _) in childChanges where registry[id] == nil && changedObjects[id] == nil { ids.append(id) }
        return ids
    }

    private func mergeRemoteChanges(_ result: BatchResult) {
        var rows: [ObjectID: AcceptedChange] = [:]
        for id in result.deletedObjectIDs { rows[id] = .removed }
        mergeChanges(fromContextDidSave: ContextDidSave(rows: rows))
        for id in result.updatedObjectIDs {
            guard let object = registeredObject(for: id) else { continue }
            // Announced as Core Data announces the objects a merge refreshed: those whose values
            // are dropped for the new row's. A fault has none, and an object with changes keeps
            // them (see above).
            var isRefreshed = false
            if case .clean = object.state { isRefreshed = object.changedMask.isEmpty }
            refresh(object, mergeChanges: true)
            if isRefreshed { noteObjectChange { $0.noteRefreshed(id) } }
        }
    }
}
