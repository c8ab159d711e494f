import Foundation
import Synchronization
import LineupLocking

extension ManagedObjectContext {
    /// SQLite stores a NaN as NULL, so a saved NaN would come back as nil (or as a non-optional
    /// attribute's default): refused at save, as Core Data's validation refuses a value it cannot
    /// keep, rather than changed on its way to the disk. Found by the fetch-predicate fuzzer.
    private static func checkStorable(_ object: ManagedObject) throws {
        // Looked at in place, as the save looks at every value of every object it pushes: a loop
        // that took each value out would retain and release its text.
        let isNaN = { (value: StoreValue) -> Bool in
            if case .real(let number) = value { return number.isNaN }
            return false
        }
        guard let index = object.values.firstIndex(where: isNaN) else { return }
        throw StoreError(
            .validationFailed,
            "\(object.objectID): `\(object.entity.properties[index].name)` is NaN, which the store cannot keep (SQLite reads it back as NULL)")
    }

    /// Validates the changed objects, then pushes the changes exactly one level up: into the
    /// parent context (on its queue), or, for the writer, into the store as one SQLite
    /// transaction. A save with no changes does no work.
    ///
    /// On a conflict, the context's ``mergePolicy`` decides; under `.error` the save throws a
    /// ``StoreError`` listing the conflicts and nothing is pushed.
    public func save() throws {
        try save(attaching: [])
    }

    /// A save whose transaction also runs `statements`, after the rows (see
    /// ``PersistentContainer/flush(including:)``); only the writer, which writes to the store,
    /// takes statements. They are written even when there is no row to write. When the store
    /// refuses the transaction, nothing changes here, as for any failed save.
    ///
    /// The messages enqueued here (``enqueue(_:)``) move with the changes: into the parent, or, at
    /// the writer, into the same transaction, as the statements `routeOutbox` makes of them (by
    /// default the store's outbox insertions; see ``PersistentContainer/flush(including:routingOutbox:)``).
    func save(attaching statements: [FlushStatement], routingOutbox routeOutbox: OutboxRoute? = nil) throws {
        preconditionOnQueue()
        if !statements.isEmpty, case .context = parent {
            preconditionFailure("\(name): only the writer, whose parent is the store, saves with statements")
        }
        guard hasChanges else {
            let messages = outbox
            if !statements.isEmpty || !messages.isEmpty {
                try pushWithoutChanges(messages, attaching: statements, routingOutbox: routeOutbox)
            }
            return
        }
        postObjectsDidChange()
        if postWillSave() {
            // What the observers changed is saved, and posted first.
            postObjectsDidChange()
        }
        try applyDeleteRules()
        needsDeletePropagation = false
        for object in changedObjects.values {
            switch object.state {
            case .inserted, .clean:
                do {
                    try object.validateForSave()
                } catch {
                    throw StoreError(
                        .validationFailed, "\(object.objectID): \(error)", underlying: error)
                }
                try Self.checkStorable(object)
            default:
                break
            }
        }
        let changes = pendingChanges()
        // Read after the will-save observers, which may enqueue too.
        let messages = outbox
        guard !changes.isEmpty else {
            // Only deletions merged from other saves, whose rows are gone already: nothing to push
            // but the statements and the messages.
            if !statements.isEmpty || !messages.isEmpty {
                try pushWithoutChanges(messages, attaching: statements, routingOutbox: routeOutbox)
            }
            adoptSaved([:])
            return
        }
        let exceptions: [ObjectID: AcceptedChange]
        switch parent {
        case let .context(parentContext):
            let policy = mergePolicy
            waitWhileBacklogged()
            exceptions = try parentContext.performAndWait {
                let exceptions = try parentContext.accept(changes, policy: policy, from: self)
                // Only once the changes are in: a refused save leaves its messages here with them.
                parentContext.acceptOutbox(messages)
                return exceptions
            }
        case .store:
            exceptions = try writeToStore(
                changes, attaching: statements + outboxStatements(for: messages, routingOutbox: routeOutbox))
        }
        outbox.removeFirst(messages.count)
        adoptSaved(exceptions)
        savedRowChangeCount += changes.count
        postDidSave(ContextDidSave(changes: changes, exceptions: exceptions))
        // This context's own save changed what its children read, as a child's save into it
        // does (see `accept`): the children that merge automatically take both.
        notifyChildren(of: ContextDidSave(changes: changes, exceptions: exceptions), except: nil)
    }

    /// The writer's side of a save whose transaction the store committed although the save threw
    /// (its connection was lost during or right after the COMMIT): what the writer holds, rows
    /// and messages, is taken as written, as the save would have taken it, and nothing is
    /// written again. Only for the writer, and only once the caller knows that the transaction
    /// committed; its store-side resolutions (merge-policy exceptions) are not known here, so the
    /// rows are taken as they were pushed.
    ///
    /// - Returns: The rows taken as written.
    func adoptChangesCommittedWithoutAnswer() -> Int {
        preconditionOnQueue()
        guard case .store = parent else {
            preconditionFailure("\(name): only the writer, whose parent is the store, adopts a committed write")
        }
        let changes = pendingChanges()
        outbox.removeAll()
        guard !changes.isEmpty else { return 0 }
        adoptSaved([:])
        savedRowChangeCount += changes.count
        postDidSave(ContextDidSave(changes: changes, exceptions: [:]))
        notifyChildren(of: ContextDidSave(changes: changes, exceptions: [:]), except: nil)
        return changes.count
    }

    /// A save of messages and statements alone: into the parent, or into one transaction of the
    /// store. The messages stay here if it fails.
    private func pushWithoutChanges(
        _ messages: [OutboxMessage], attaching statements: [FlushStatement], routingOutbox routeOutbox: OutboxRoute?
    ) throws {
        switch parent {
        case let .context(parentContext):
            parentContext.performAndWait { parentContext.acceptOutbox(messages) }
        case .store:
            try writeToStore(ChangeSet(), attaching: statements + outboxStatements(for: messages, routingOutbox: routeOutbox))
        }
        outbox.removeFirst(messages.count)
    }

    /// What the writer's transaction runs for `messages`: the route's statements, or by default
    /// the store's outbox insertions.
    private func outboxStatements(for messages: [OutboxMessage], routingOutbox routeOutbox: OutboxRoute?) throws -> [FlushStatement] {
        guard !messages.isEmpty else { return [] }
        if let routeOutbox { return try routeOutbox(messages) }
        let dialect = store.dialect
        return messages.map { OutboxSQL.insertion(of: $0, dialect) }
    }

    /// The writer's write: `changes` and `statements` in one transaction of the store, the write
    /// gate held meanwhile.
    @discardableResult
    func writeToStore(_ pushed: ChangeSet, attaching statements: [FlushStatement]) throws -> [ObjectID: AcceptedChange] {
        let changes = mergedInserts.isEmpty ? pushed : UniquenessResolution.redirecting(pushed, to: mergedInserts) ?? pushed
        do {
            writeGate.beginWrite()
            defer { writeGate.endWrite() }
            return try store.save(changes, policy: mergePolicy, attaching: statements)
        } catch let error as StoreError where store.isUniqueKeyViolation(error) {
            // The writer leaves the check against the disk to the store's unique indexes (see
            // `accept`); the transaction was rolled back. Name the rows as any check would, or
            // settle them by their policies (else the writer's) and write again (another writer of
            // the database may have taken a key since: that is settled in turn).
            let resolution = try UniquenessResolution(
                changes, policy: mergePolicy, check: UniquenessCheck(context: self, includesStore: true, changesArePending: true),
                currentRow: currentRow, nextStamp: store.nextStamp)
            guard resolution.settledAny else { throw error }
            var exceptions = try writeToStore(resolution.changes, attaching: statements)
            // Written: the merged inserts are gone for good, and their rows are the holders.
            // Only a row that a to-one relationship can point at needs remembering.
            if !resolution.mergedInto.isEmpty {
                let pointedAt = Set(
                    store.model.entities.flatMap { $0.relationships.filter { $0.kind == .toOne }.map(\.destinationEntityName) })
                for (key, holder) in resolution.mergedInto where pointedAt.contains(holder.entityName) {
                    mergedInserts[key] = holder
                }
            }
            // The store's word on a row it wrote is the later one; the rows dropped it never saw.
            exceptions.merge(resolution.exceptions) { written, _ in written }
            return exceptions
        }
    }

    /// Backpressure: while the writer writes a transaction and the contexts above this one already
    /// hold more unsaved rows than the store's backlog limit, a save waits for that write to end
    /// before it pushes more. Waits on no queue (only this context's own, which it holds anyway), so
    /// the main context stays responsive; and a write never waits for a child, so this returns.
    /// A save into the writer itself is left alone: it moves rows without copying them, and waits
    /// for the writer's queue anyway.
    private func waitWhileBacklogged() {
        guard ancestors.count > 1 else { return }
        guard writeGate.isWriting else { return }
        var backlog = 0
        for ancestor in ancestors { backlog += ancestor.publishedChanges().count }
        guard backlog > writeGate.backlogLimit.load(ordering: .relaxed) else { return }
        writeGate.waitForWriteUnderWay()
    }

    /// Restores the committed values of updated objects, forgets inserted objects and un-deletes
    /// the objects deleted here; drops the changes received from children too, and the messages
    /// enqueued here or received from children.
    ///
    /// An object deleted by a merged save of another context stays deleted: its row is gone, and
    /// un-deleting it would leave an object that no save can store (Core Data's rollback un-deletes
    /// it, and its next fault fails).
    public func rollback() {
        preconditionOnQueue()
        for object in changedObjects.values {
            switch object.state {
            case .inserted:
                object.state = .detached
                registry[object.objectID] = nil
            case .clean:
                if let committed = object.committedValuesStorage { object.values = committed }
                object.stamp = object.baseStamp
            case .deleted(.merged):
                object.state = .inaccessible
                object.values = object.entity.defaultValues
                registry[object.objectID] = nil
            case .deleted:
                object.state = .clean
                if let committed = object.committedValuesStorage { object.values = committed }
                object.stamp = object.baseStamp
            default:
                break
            }
            object.changedMask = .empty
            object.committedValuesStorage = nil
        }
        changedObjects = [:]
        insertedInOrder = []
        childChanges = ChangeSet()
        outbox = []
        needsPublish = true
    }

    /// Forgets every object, with or without changes, and every message not saved yet. Objects
    /// handed out before are detached.
    public func reset() {
        preconditionOnQueue()
        for object in changedObjects.values {
            object.state = .detached
        }
        changedObjects = [:]
        insertedInOrder = []
        childChanges = ChangeSet()
        outbox = []
        registry = [:]
        faultBatches = [:]
        registryCountAtLastPurge = 0
        needsPublish = true
    }

    // MARK: - Internal

    /// After a save: objects take the values and versions the parent stored, and become clean.
    /// `exceptions` lists the rows not stored as pushed; every other object keeps its values.
    private func adoptSaved(_ exceptions: [ObjectID: AcceptedChange]) {
        var saved = changedObjects
        changedObjects = [:]
        insertedInOrder = []
        childChanges = ChangeSet()
        // Walk the objects in place: an object that only `saved` holds dies with it, so it needs
        // no update and no weak registry entry (which would be dead at once). A bulk import that
        // drops its objects after inserting them pays nothing per object here.
        var index = saved.startIndex
        while index != saved.endIndex {
            defer { saved.formIndex(after: &index) }
            let id = saved.keys[index]
            let onlyHeldHere = isKnownUniquelyReferenced(&saved.values[index])
            let object = saved.values[index]
            let outcome = exceptions.isEmpty ? nil : exceptions[id]
            switch outcome {
            case let .stored(row)?:
                if onlyHeldHere { continue }
                object.values = row.values
                object.stamp = row.stamp
                object.baseStamp = row.stamp
                object.state = .clean
                object.changedMask = .empty
                object.committedValuesStorage = nil
                registry[id] = WeakObject(object: object)
            case .removed?:
                registry[id] = nil
                if onlyHeldHere { continue }
                if case .deleted = object.state {
                    object.state = .detached
                } else {
                    object.state = .inaccessible
                    object.values = object.entity.defaultValues
                }
                object.changedMask = .empty
                object.committedValuesStorage = nil
            case nil:
                // Stored as pushed.
                switch object.state {
                case .deleted:
                    registry[id] = nil
                    if onlyHeldHere { continue }
                    object.state = .detached
                    object.changedMask = .empty
                    object.committedValuesStorage = nil
                case .inserted, .clean:
                    if onlyHeldHere { continue }
                    object.baseStamp = object.stamp
                    object.state = .clean
                    object.changedMask = .empty
                    object.committedValuesStorage = nil
                    registry[id] = WeakObject(object: object)
                case .fault, .inaccessible, .detached:
                    if onlyHeldHere { continue }
                    registry[id] = WeakObject(object: object)
                }
            }
        }
        purgeRegistryIfNeeded()
        needsPublish = true
        processPendingChanges()
    }

    /// Takes a child's saved changes into this context (on this context's queue) and returns the
    /// exceptions (see ``AcceptedChange``).
    ///
    /// Segments of inserts for rows that have no object here are taken as they are: inserts have
    /// no version to check, and their rows are new to this context, so nothing is merged. The
    /// other changes go row by row: conflicts are checked and resolved against this context's
    /// rows, objects registered here take the changes, and a change that meets an earlier one of
    /// the same row is combined with it. Nothing changes here until every check has passed.
    func accept(_ changes: ChangeSet, policy: MergePolicy, from child: ManagedObjectContext) throws -> [ObjectID: AcceptedChange] {
        preconditionOnQueue()
        var adopted: [ChangeSegment] = []
        var others = ChangeSegment.Builder()
        // Oldest first, so that the newest change of a key is appended last and kept.
        for segment in changes.segments.reversed() {
            if segment.insertsOnly && !hasRegisteredObject(in: segment) {
                adopted.insert(segment, at: 0)
            } else {
                for row in segment.rows { others.append(row.change, for: row.id) }
            }
        }
        let rowByRow = others.build()
        var toApply = rowByRow
        var exceptions: [ObjectID: AcceptedChange] = [:]
        if !rowByRow.insertsOnly {
            let current = try currentRows(for: rowByRow)
            let resolution = try ConflictResolution(rowByRow, current: current, policy: policy, nextStamp: store.nextStamp)
            toApply = resolution.toApply
            exceptions = resolution.exceptions
        }
        let incoming = ChangeSet([toApply] + adopted)
        // Against the disk too, except at the writer: whatever it accepts it writes next, in a
        // transaction that the store's unique indexes check anyway, and the rows that jobs save
        // were checked against the disk on their way into the main context. A duplicate that
        // reaches the writer meets the store's unique index at the flush, which settles it by the
        // policy of the context that made it, else the writer's (see `writeToStore`). Conflicts
        // are settled by the policy each change carries, else by the saver's.
        if incoming.hasUniquenessConstraints {
            let resolution = try UniquenessResolution(
                incoming, policy: policy, check: UniquenessCheck(context: self, includesStore: ancestors.count > 0),
                currentRow: currentRow, nextStamp: store.nextStamp)
            if resolution.settledAny {
                // Settled row by row: the holders' updates meet objects and earlier changes here.
                toApply = resolution.changes.segments.first ?? ChangeSegment()
                adopted = []
                exceptions.merge(resolution.exceptions) { _, settled in settled }
            }
        }
        for index in adopted.indices { adopted[index].markKeysChecked() }
        if !toApply.isEmpty {
            var merged = ChangeSegment.Builder(capacity: toApply.count)
            for row in toApply.rows {
                let (id, change) = (row.id, row.change)
                if let object = registeredObject(for: id) {
                    apply(change, to: object)
                } else if let earlier = childChanges.removeValue(forKey: id) {
                    if let combined = earlier.followed(by: change) { merged.append(combined, for: id) }
                } else {
                    merged.append(change, for: id)
                }
            }
            var checked = merged.build()
            checked.markKeysChecked()
            childChanges.prepend(checked)
        }
        childChanges.prepend(contentsOf: ChangeSet(adopted))
        childChanges.compact()
        needsPublish = true
        processPendingChanges()
        notifyChildren(of: ContextDidSave(changes: changes, exceptions: exceptions), except: child)
        childSaveObservers.post(ChildSaveAccepted(childName: child.name, pendingRowCount: childChanges.count))
        return exceptions
    }

    /// Whether an object registered here has a change in `segment` (which then goes row by row,
    /// so that the object takes it). Looks up the smaller side; free when nothing is registered.
    private func hasRegisteredObject(in segment: ChangeSegment) -> Bool {
        if changedObjects.isEmpty && registry.isEmpty { return false }
        if changedObjects.count + registry.count < segment.count {
            return changedObjects.keys.contains { segment[$0] != nil }
                || registry.keys.contains { segment[$0] != nil }
        }
        return segment.rows.contains { changedObjects[$0.id] != nil || registry[$0.id] != nil }
    }

    /// The row of `id` as this context sees it (its own objects, then the pending changes and
    /// the store), without a child's incoming changes; nil when it has none.
    private func currentRow(_ id: ObjectID, entity: EntityDescription) throws -> RowSnapshot? {
        if let object = changedObjects[id] {
            if case .deleted = object.state { return nil }
            return RowSnapshot(values: object.values, stamp: object.stamp)
        }
        return try lookUpRows([id], entity: entity)[id]
    }

    /// This context's current rows for the updated and deleted rows of `changes`: its own unsaved
    /// changes first, then its ancestors' and the store's.
    private func currentRows(for changes: ChangeSegment) throws -> [ObjectID: RowSnapshot] {
        var result: [ObjectID: RowSnapshot] = [:]
        var toLookUp: [EntityDescription: [ObjectID]] = [:]
        for row in changes.rows where row.change.kind != .insert {
            let (id, change) = (row.id, row.change)
            if let object = changedObjects[id] {
                if case .deleted = object.state { continue }
                result[id] = RowSnapshot(values: object.values, stamp: object.stamp)
            } else {
                toLookUp[change.entity, default: []].append(id)
            }
        }
        for (entity, ids) in toLookUp {
            result.merge(try lookUpRows(ids, entity: entity)) { own, _ in own }
        }
        return result
    }

    /// Applies a child's change to an object registered here.
    private func apply(_ change: RowChange, to object: ManagedObject) {
        let id = object.objectID
        // A child's saved change of an object registered here is a change of that object here.
        noteObjectChange { changes in
            switch change.kind {
            case .insert: changes.noteInserted(id)
            case .update: changes.noteUpdated(id)
            case .delete: changes.noteDeleted(id)
            }
        }
        switch change.kind {
        case .delete:
            if case .inserted = object.state {
                object.state = .deleted(.unsavedInsert)
                changedObjects[id] = nil
                registry[id] = nil
                return
            }
            if object.changedMask.isEmpty { object.baseStamp = change.baseStamp }
            object.state = .deleted(.pending)
        case .insert:
            if !object.isInserted { insertedInOrder.append(object) }
            object.values = change.values
            object.stamp = change.stamp
            object.state = .inserted
        case .update:
            switch object.state {
            case .inserted:
                object.values = change.values
            case .fault, .clean:
                if object.changedMask.isEmpty {
                    object.committedValuesStorage = change.baseValues ?? (object.isFault ? nil : object.values)
                    object.values = change.values
                    object.changedMask = change.changedMask
                    object.baseStamp = change.baseStamp
                } else {
                    for index in change.changedMask.indexes { object.values[index] = change.values[index] }
                    object.changedMask = object.changedMask.union(change.changedMask)
                }
                object.state = .clean
            case .deleted, .inaccessible, .detached:
                return
            }
            object.stamp = change.stamp
        }
        changedObjects[id] = object
    }
}

extension EntityDescription: Hashable {
    /// Identity: an entity has one description, shared by every model that holds it.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    /// Hashes the description's identity, as `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
