import Logging

extension ManagedObject {
    /// The objects of `Destination` whose to-one `inverse` refers to this object, as its context
    /// sees them, in primary-key order: a to-many relationship's value.
    ///
    /// A context sees each row as one version: an object it holds loaded as it loaded it (or
    /// changed it), until a merge or a refresh, even when a sibling's save has since changed the
    /// row in the parent; any other row as its parent sees it. Both sides of the relationship are
    /// read from that one version, so they agree. The fetch matches the parent's versions, so its
    /// answer is corrected by the loaded objects' own values: those that moved away are dropped,
    /// and the loaded objects that still lead here (which the parent may no longer list) added.
    func relatedObjects<Destination: ManagedObject>(through inverse: String, of type: Destination.Type) -> [Destination] {
        preconditionOnContextQueue()
        guard let context = managedObjectContext else { return [] }
        let destination = context.model.entity(for: Destination.self) ?? Destination.entity
        let index = destination.propertyIndex(inverse)
        let key = StoreValue.integer(objectID.primaryKey)
        let request = FetchRequest<Destination>(predicate: FetchPredicate(.compare(property: inverse, .equal, key)))
        var related: [ObjectID: Destination] = [:]
        do {
            for object in try context.fetch(request) where object.storeValue(at: index) == key {
                related[object.objectID] = object
            }
        } catch {
            // A getter cannot throw; a store that cannot be read is reported where it happens.
            context.logger.error(
                "cannot read a to-many relationship", metadata: ["object": "\(objectID)", "error": "\(error)"])
            return []
        }
        context.forEachLoadedObject(of: destination) { object in
            if object.values[index] == key, let object = object as? Destination {
                related[object.objectID] = object
            }
        }
        return related.values.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
    }

    /// Makes `objects` the to-many relationship's value by setting their to-one `inverse`: the
    /// objects that leave it get nil, the ones that join it get this object.
    func setRelatedObjects<Destination: ManagedObject>(_ objects: [Destination], through inverse: String) {
        let current = relatedObjects(through: inverse, of: Destination.self)
        let index = Destination.entity.propertyIndex(inverse)
        let kept = Set(objects.map(\.objectID))
        for object in current where !kept.contains(object.objectID) {
            object.setStoreValue(.null, at: index)
        }
        for object in objects {
            precondition(
                object.managedObjectContext === managedObjectContext,
                "\(objectID): a relationship must reach objects of the same context")
            object.setStoreValue(.integer(objectID.primaryKey), at: index)
        }
    }
}

extension ManagedObjectContext {
    /// The predicate with each condition on a to-many relationship replaced by the keys of the
    /// objects that pass it, counted as this context sees the related objects: its own and its
    /// ancestors' unsaved changes over the store. SQL alone would count the store's rows only,
    /// and a fetch would then disagree with the objects it returns. Without pending changes the
    /// store's correlated subqueries answer, and the predicate is left as it is.
    func resolvingRelationships(_ node: PredicateNode, includesPendingChanges: Bool) throws -> PredicateNode {
        guard includesPendingChanges, node.containsRelated else { return node }
        return try node.replacingRelated { try resolve($0) }
    }

    private func resolve(_ condition: RelatedCondition) throws -> PredicateNode {
        guard let destination = model.entity(named: condition.destination) else {
            preconditionFailure("\(condition.destination) is not in the model")
        }
        if let join = condition.join {
            return try resolveManyToMany(condition, through: join, destination: destination)
        }
        let predicate = try resolvingRelationships(condition.predicate, includesPendingChanges: true)
        let inverse = destination.propertyIndex(condition.inverse)
        var counts = try store.relatedCounts(
            of: destination, inverse: condition.inverse, matching: predicate, on: storeReader)
        // The pending changes of the destination replace their rows' store versions in the counts.
        var changed: [ObjectID] = []
        pendingOverlay().forEachVisibleChange(of: destination) { id, change in
            changed.append(id)
            if change.kind != .delete, case let .integer(key) = change.values[inverse],
                predicate.evaluate(change.values, primaryKey: id.primaryKey, entity: destination)
            {
                counts[key, default: 0] += 1
            }
        }
        for (id, row) in try store.fetchRows(ids: changed, entity: destination, on: storeReader) {
            if case let .integer(key) = row.values[inverse],
                predicate.evaluate(row.values, primaryKey: id.primaryKey, entity: destination)
            {
                counts[key, default: 0] -= 1
            }
        }
        // Objects that reach no related object have no count: when 0 passes, list those that fail.
        if condition.holds(for: 0) {
            return .not(.primaryKeyIn(Set(counts.filter { !condition.holds(for: $0.value) }.keys)))
        }
        return .primaryKeyIn(Set(counts.filter { condition.holds(for: $0.value) }.keys))
    }
}
