import Foundation

extension ManagedObjectContext {
    /// Validates the changed objects, then pushes the changes exactly one level up: into the
    /// parent context (on its queue), or, for the writer, into the store as one SQLite
    /// transaction. A save with no changes does no work.
    ///
    /// On a conflict, the context's ``mergePolicy`` decides; under `.error` the save throws a
    /// ``StoreError`` listing the conflicts and nothing is pushed.
    public func save() throws {
        assertOnQueue()
        guard hasChanges else { return }
        for object in changedObjects.values {
            switch object.state {
            case .inserted, .clean:
                do {
                    try object.validateForSave()
                } catch {
                    throw StoreError(
                        .validationFailed, "\(object.objectID): \(error)", underlying: error)
                }
            default:
                break
            }
        }
        let changes = pendingChanges()
        let policy = mergePolicy
        let accepted: [ObjectID: AcceptedChange]
        switch parent {
        case let .context(parentContext):
            accepted = try parentContext.performAndWait {
                try parentContext.accept(changes, policy: policy, from: self)
            }
        case let .store(store):
            accepted = try store.save(changes, policy: policy)
        }
        adoptSaved(accepted)
        postDidSave(ContextDidSave(changes: changes, accepted: accepted))
    }

    /// Restores the committed values of updated objects, forgets inserted objects and un-deletes
    /// deleted ones; drops the changes received from children too.
    public func rollback() {
        assertOnQueue()
        for object in changedObjects.values {
            switch object.state {
            case .inserted:
                object.state = .detached
                registry[object.objectID] = nil
            case .clean:
                if let committed = object.committedValuesStorage { object.values = committed }
                object.stamp = object.baseStamp
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
        childChanges = [:]
        needsPublish = true
    }

    /// Forgets every object, with or without changes. Objects handed out before are detached.
    public func reset() {
        assertOnQueue()
        for object in changedObjects.values {
            object.state = .detached
        }
        changedObjects = [:]
        childChanges = [:]
        registry = [:]
        faultBatches = [:]
        registryCountAtLastPurge = 0
        needsPublish = true
    }

    // MARK: - Internal

    /// After a save: objects take the values and versions the parent stored, and become clean.
    private func adoptSaved(_ accepted: [ObjectID: AcceptedChange]) {
        for (id, object) in changedObjects {
            switch accepted[id] {
            case let .stored(row):
                object.values = row.values
                object.stamp = row.stamp
                object.baseStamp = row.stamp
                object.state = .clean
                object.changedMask = .empty
                object.committedValuesStorage = nil
                registry[id] = WeakObject(object: object)
            case .removed:
                if case .deleted = object.state {
                    object.state = .detached
                } else {
                    object.state = .inaccessible
                    object.values = object.entity.defaultValues
                }
                object.changedMask = .empty
                object.committedValuesStorage = nil
                registry[id] = nil
            case nil:
                registry[id] = WeakObject(object: object)
            }
        }
        changedObjects = [:]
        childChanges = [:]
        purgeRegistryIfNeeded()
        needsPublish = true
        processPendingChanges()
    }

    /// Takes a child's saved changes into this context (on this context's queue).
    func accept(_ changes: ChangeSet, policy: MergePolicy, from child: ManagedObjectContext) throws -> [ObjectID: AcceptedChange] {
        assertOnQueue()
        let current = try currentRows(for: changes)
        let resolution = try ConflictResolution(changes, current: current, policy: policy, nextStamp: store.nextStamp)
        try UniquenessCheck(context: self).verify(resolution.toApply)
        for (id, change) in resolution.toApply {
            if let object = registeredObject(for: id) {
                apply(change, to: object)
            } else if let earlier = childChanges[id] {
                childChanges[id] = earlier.followed(by: change)
            } else {
                childChanges[id] = change
            }
        }
        needsPublish = true
        processPendingChanges()
        notifyChildren(of: ContextDidSave(changes: changes, accepted: resolution.results), except: child)
        return resolution.results
    }

    /// This context's current rows for the updated and deleted rows of `changes`: its own unsaved
    /// changes first, then its ancestors' and the store's.
    private func currentRows(for changes: ChangeSet) throws -> [ObjectID: RowSnapshot] {
        var result: [ObjectID: RowSnapshot] = [:]
        var toLookUp: [EntityDescription: [ObjectID]] = [:]
        for (id, change) in changes where change.kind != .insert {
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
        switch change.kind {
        case .delete:
            if case .inserted = object.state {
                object.state = .deleted(wasInserted: true)
                changedObjects[id] = nil
                registry[id] = nil
                return
            }
            if object.changedMask.isEmpty { object.baseStamp = change.baseStamp }
            object.state = .deleted(wasInserted: false)
        case .insert:
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
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
