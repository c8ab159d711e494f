import Logging
import Synchronization

extension ManagedObjectContext {
    // MARK: - Looking objects up

    /// The registered object for `id`, or a fault for it. Never nil and never does I/O; a fault
    /// whose row turns out to be gone reports itself deleted and gives default values.
    public func object(with id: ObjectID) -> ManagedObject {
        preconditionOnQueue()
        if let object = registeredObject(for: id) {
            return object
        }
        guard let entity = model.entity(named: id.entityName) else {
            preconditionFailure("\(id): entity \(id.entityName) is not in the model")
        }
        if let change = childChanges.removeValue(forKey: id) {
            return materialize(change, id: id)
        }
        let fault = makeObject(id: id, entity: entity, values: [], stamp: 0, state: .fault)
        registry[id] = WeakObject(object: fault)
        return fault
    }

    /// The object for `id` with its values loaded; throws ``StoreError`` `.objectNotFound` when
    /// its row does not exist (or is deleted in this context's view).
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        preconditionOnQueue()
        if let object = registeredObject(for: id) {
            try fulfillFault(object, throwing: true)
            if case .inaccessible = object.state {
                throw StoreError(.objectNotFound, "\(id) does not exist")
            }
            return object
        }
        if childChanges[id] != nil {
            let object = self.object(with: id)
            if object.isDeleted { throw StoreError(.objectNotFound, "\(id) is deleted") }
            return object
        }
        guard let entity = model.entity(named: id.entityName) else {
            throw StoreError(.objectNotFound, "\(id): entity \(id.entityName) is not in the model")
        }
        guard let row = try lookUpRows([id], entity: entity)[id] else {
            throw StoreError(.objectNotFound, "\(id) does not exist")
        }
        return register(id: id, entity: entity, row: row)
    }

    /// The object registered in this context for `id`, or nil. Never does I/O.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        preconditionOnQueue()
        if let object = changedObjects[id] { return object }
        return registry[id]?.object
    }

    /// Every object currently registered (with or without changes).
    public var registeredObjects: [ManagedObject] {
        preconditionOnQueue()
        var result = Array(changedObjects.values)
        for (id, entry) in registry where changedObjects[id] == nil {
            if let object = entry.object { result.append(object) }
        }
        return result
    }

    // MARK: - Change tracking

    /// The objects inserted and not saved yet, here or by a child's save into this context, in no
    /// particular order. Asking makes objects of the rows children saved, which costs memory in a
    /// context that holds many.
    public var insertedObjects: [ManagedObject] {
        materializeChildChanges()
        return changedObjects.values.filter(\.isInserted)
    }

    /// The saved objects with changed properties not saved yet, here or by a child's save, in no
    /// particular order (same cost as ``insertedObjects``).
    public var updatedObjects: [ManagedObject] {
        materializeChildChanges()
        return changedObjects.values.filter(\.isUpdated)
    }

    /// The objects marked for deletion, here, by a child's save or by a merge, whose deletion the
    /// next save pushes, in no particular order (same cost as ``insertedObjects``).
    public var deletedObjects: [ManagedObject] {
        materializeChildChanges()
        return changedObjects.values.filter {
            switch $0.state {
            case .deleted(.pending), .deleted(.merged): return true
            default: return false
            }
        }
    }

    /// Whether the next save has anything to push: objects changed here, or rows a child saved into
    /// this context. Cheap: it makes no objects.
    public var hasChanges: Bool {
        preconditionOnQueue()
        return !changedObjects.isEmpty || !childChanges.isEmpty
    }

    /// How many rows this context would push at its next save: the objects changed in it, and
    /// the rows its children saved into it. For the main context, what the next flush writes
    /// (and what a crash before it would lose): a gauge for operators.
    public var unsavedRowCount: Int {
        preconditionOnQueue()
        return changedObjects.count + childChanges.count
    }

    /// Marks an object for deletion at the next save; its delete rules apply at the end of the
    /// event (see ``propagatesDeletesAtEndOfEvent``), or at the save. Deleting an object inserted
    /// since the last save simply forgets it.
    public func delete(_ object: ManagedObject) {
        preconditionOnQueue()
        precondition(object.managedObjectContext === self, "\(object.objectID) belongs to another context")
        switch object.state {
        case .inserted:
            object.state = .deleted(.unsavedInsert)
            changedObjects[object.objectID] = nil
            registry[object.objectID] = nil
        case .fault, .clean:
            try? fulfillFault(object, throwing: false)
            guard case .clean = object.state else { return }
            if object.changedMask.isEmpty {
                object.baseStamp = object.stamp
            }
            object.state = .deleted(.pending)
            changedObjects[object.objectID] = object
            if !object.entity.relationships.isEmpty { needsDeletePropagation = true }
        case .deleted, .inaccessible, .detached:
            return
        }
        noteObjectChange { $0.noteDeleted(object.objectID) }
        needsPublish = true
    }

    /// Turns an object back into a fault (dropping its unsaved changes when `mergeChanges` is false)
    /// so that its next use reloads it.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        preconditionOnQueue()
        guard case .clean = object.state else { return }
        if mergeChanges && !object.changedMask.isEmpty { return }
        changedObjects[object.objectID] = nil
        object.changedMask = .empty
        object.committedValuesStorage = nil
        object.values = []
        object.state = .fault
        needsPublish = true
    }

    // MARK: - Internal: registration

    func initializationForInsert(of type: ManagedObject.Type) -> ObjectInitialization {
        preconditionOnQueue()
        let entity: EntityDescription
        if let last = lastInsertedEntity, ObjectIdentifier(last.objectType) == ObjectIdentifier(type) {
            entity = last
        } else {
            guard let found = model.entity(for: type) else {
                preconditionFailure("\(type) is not an entity of this context's model")
            }
            entity = found
            lastInsertedEntity = found
        }
        if reservedKeys.isEmpty {
            reservedKeys = store.reservePrimaryKeys()
        }
        let primaryKey = reservedKeys.removeFirst()
        let id = ObjectID(storeIdentifier: storeIdentifier, entityName: entity.name, primaryKey: primaryKey)
        return ObjectInitialization(
            objectID: id, entity: entity, context: self, values: entity.defaultValues,
            stamp: store.nextStamp(), state: .inserted, isPrototype: false)
    }

    func registerInserted(_ object: ManagedObject) {
        changedObjects[object.objectID] = object
        insertedInOrder.append(object)
        noteObjectChange { $0.noteInserted(object.objectID) }
        needsPublish = true
    }

    /// Called by an object the first time it changes after a load or save.
    func registerChanged(_ object: ManagedObject) {
        object.baseStamp = object.stamp
        object.stamp = store.nextStamp()
        changedObjects[object.objectID] = object
        needsPublish = true
    }

    func makeObject(
        id: ObjectID, entity: EntityDescription, values: [StoreValue], stamp: Int64, state: ManagedObject.State
    ) -> ManagedObject {
        entity.objectType.init(
            ObjectInitialization(
                objectID: id, entity: entity, context: self, values: values, stamp: stamp, state: state,
                isPrototype: false))
    }

    /// Registers a clean object for a row read from an ancestor or the store.
    func register(id: ObjectID, entity: EntityDescription, row: RowSnapshot) -> ManagedObject {
        if let object = registeredObject(for: id) {
            if case .fault = object.state {
                object.values = row.values
                object.stamp = row.stamp
                object.baseStamp = row.stamp
                object.state = .clean
            }
            return object
        }
        if let change = childChanges.removeValue(forKey: id) {
            return materialize(change, id: id)
        }
        let object = makeObject(id: id, entity: entity, values: row.values, stamp: row.stamp, state: .clean)
        registry[id] = WeakObject(object: object)
        purgeRegistryIfNeeded()
        return object
    }

    /// Turns a change received from a child into an object that carries it.
    func materialize(_ change: RowChange, id: ObjectID) -> ManagedObject {
        let object: ManagedObject
        switch change.kind {
        case .insert:
            object = makeObject(id: id, entity: change.entity, values: change.values, stamp: change.stamp, state: .inserted)
            insertedInOrder.append(object)
        case .update:
            object = makeObject(id: id, entity: change.entity, values: change.values, stamp: change.stamp, state: .clean)
            object.changedMask = change.changedMask
            object.committedValuesStorage = change.baseValues
            object.baseStamp = change.baseStamp
        case .delete:
            object = makeObject(
                id: id, entity: change.entity, values: change.values, stamp: change.stamp,
                state: .deleted(.pending))
            object.baseStamp = change.baseStamp
        }
        changedObjects[id] = object
        registry[id] = WeakObject(object: object)
        return object
    }

    func materializeChildChanges() {
        preconditionOnQueue()
        for (id, change) in childChanges where registeredObject(for: id) == nil {
            _ = materialize(change, id: id)
        }
        childChanges = ChangeSet()
    }

    /// Forgets registry entries whose objects are gone, once the registry has doubled.
    func purgeRegistryIfNeeded() {
        guard registry.count > 1024, registry.count > 2 * registryCountAtLastPurge else { return }
        registry = registry.filter { $0.value.object != nil }
        registryCountAtLastPurge = registry.count
    }

    // MARK: - Internal: rows

    /// Loads a fault's values. A row that is gone makes the object inaccessible (default values,
    /// `isDeleted`), and throws only when asked to.
    func fulfillFault(_ object: ManagedObject, throwing: Bool) throws {
        guard case .fault = object.state else { return }
        if let batch = faultBatches[object.objectID] {
            loadBatch(batch, entity: object.entity)
            guard case .fault = object.state else { return }
        }
        let row: RowSnapshot?
        do {
            row = try lookUpRows([object.objectID], entity: object.entity)[object.objectID]
        } catch {
            if throwing { throw error }
            logger.error("could not load \(object.objectID): \(error)")
            row = nil
        }
        guard let row else {
            object.state = .inaccessible
            object.values = object.entity.defaultValues
            if throwing {
                throw StoreError(.objectNotFound, "\(object.objectID) does not exist")
            }
            return
        }
        object.values = row.values
        object.stamp = row.stamp
        object.baseStamp = row.stamp
        object.state = .clean
    }

    /// Loads every fault of a fetch batch with one look-up.
    private func loadBatch(_ batch: FaultBatch, entity: EntityDescription) {
        for id in batch.ids { faultBatches[id] = nil }
        guard let rows = try? lookUpRows(batch.ids, entity: entity) else { return }
        for (id, row) in rows {
            if let object = registeredObject(for: id), case .fault = object.state {
                object.values = row.values
                object.stamp = row.stamp
                object.baseStamp = row.stamp
                object.state = .clean
            }
        }
    }

    /// The rows of `ids` as this context's parent chain sees them: the nearest ancestor's unsaved
    /// change wins, then the store. Missing or deleted rows are absent from the result. Reads the
    /// ancestors' published snapshots (nearest first) and the store last, so that a row moving up
    /// the stack during the look-up is always found at one level or the next.
    func lookUpRows(_ ids: [ObjectID], entity: EntityDescription) throws -> [ObjectID: RowSnapshot] {
        var result: [ObjectID: RowSnapshot] = [:]
        var unresolved: [ObjectID] = []
        for id in ids {
            if let change = childChanges[id] {
                if change.kind != .delete { result[id] = RowSnapshot(values: change.values, stamp: change.stamp) }
            } else {
                unresolved.append(id)
            }
        }
        for ancestor in ancestors where !unresolved.isEmpty {
            let changes = ancestor.publishedChanges()
            guard !changes.isEmpty else { continue }
            unresolved.removeAll { id in
                guard let change = changes[id] else { return false }
                if change.kind != .delete { result[id] = RowSnapshot(values: change.values, stamp: change.stamp) }
                return true
            }
        }
        if !unresolved.isEmpty {
            for (id, row) in try store.fetchRows(ids: unresolved, entity: entity, on: storeReader) {
                result[id] = row
            }
        }
        return result
    }

    /// This context's unsaved changes: the ones received from children and, newer, its own
    /// objects' (inserts in a segment of their own, so that the parent can take them as they are).
    func pendingChanges() -> ChangeSet {
        var changes = childChanges
        guard !changedObjects.isEmpty else { return changes }
        let policy = ownMergePolicy
        var inserts = ChangeSegment.Builder(capacity: insertedInOrder.count)
        for object in insertedInOrder {
            guard case .inserted = object.state, let change = object.pendingChange(mergePolicy: policy) else { continue }
            inserts.append(change, for: object.objectID)
        }
        var others = ChangeSegment.Builder()
        if inserts.count < changedObjects.count {
            for (id, object) in changedObjects {
                if case .inserted = object.state { continue }
                if let change = object.pendingChange(mergePolicy: policy) { others.append(change, for: id) }
            }
        }
        changes.prepend(others.build())
        changes.prepend(inserts.build())
        return changes
    }
}

extension ManagedObject {
    /// The change this object carries, to push to the parent; its conflicts are settled by
    /// `mergePolicy`, the one its context set, or else by the pushing context's. A change only
    /// read (by a fetch, by a uniqueness check) is never settled, and takes none.
    func pendingChange(mergePolicy: MergePolicy? = nil) -> RowChange? {
        switch state {
        case .inserted:
            return RowChange(
                kind: .insert, mergePolicy: mergePolicy, entity: entity, values: values, changedMask: .empty,
                baseValues: nil, baseStamp: 0, stamp: stamp)
        case .clean where !changedMask.isEmpty:
            return RowChange(
                kind: .update, mergePolicy: mergePolicy, entity: entity, values: values, changedMask: changedMask,
                baseValues: committedValuesStorage, baseStamp: baseStamp, stamp: stamp)
        case .deleted(.pending):
            return RowChange(
                kind: .delete, mergePolicy: mergePolicy, entity: entity, values: values, changedMask: .empty, baseValues: nil,
                baseStamp: baseStamp, stamp: stamp)
        default:
            return nil
        }
    }
}
