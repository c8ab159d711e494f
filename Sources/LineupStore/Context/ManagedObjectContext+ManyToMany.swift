import Logging

extension ManagedObject {
    /// The objects a many-to-many relationship of this object reaches, as its context sees the
    /// join rows (its own and its ancestors' unsaved pairs over the store), in primary-key order.
    /// Objects deleted in this context are left out, as a one-to-many leaves them out.
    func manyToManyObjects<Destination: ManagedObject>(
        _ relationship: RelationshipDescription, of type: Destination.Type
    ) -> [Destination] {
        preconditionOnContextQueue()
        guard let context = managedObjectContext else { return [] }
        do {
            let keys = try context.keysReached(by: relationship, from: self)
            return keys.sorted().compactMap { key in
                let id = ObjectID(
                    storeIdentifier: objectID.storeIdentifier, entityName: relationship.destinationEntityName,
                    primaryKey: key)
                let object = context.object(with: id)
                return object.isDeleted ? nil : object as? Destination
            }
        } catch {
            // A getter cannot throw; a store that cannot be read is reported where it happens.
            context.logger.error(
                "cannot read a many-to-many relationship", metadata: ["object": "\(objectID)", "error": "\(error)"])
            return []
        }
    }

    /// Makes `objects` the many-to-many relationship's value: deletes the join rows of the objects
    /// that leave it and inserts one for each that joins it, which sets the other side too.
    func setManyToManyObjects<Destination: ManagedObject>(_ objects: [Destination], _ relationship: RelationshipDescription) {
        preconditionOnContextQueue()
        guard let context = managedObjectContext else { return }
        for object in objects {
            precondition(
                object.managedObjectContext === context,
                "\(objectID): a relationship must reach objects of the same context")
        }
        let join = ManyToManyJoin(source: entity.name, relationship: relationship)
        let joinEntity = context.joinEntity(join)
        let destinationIndex = joinEntity.propertyIndex(join.destinationColumn)
        let rows: [(ObjectID, RowSnapshot)]
        do {
            rows = try context.joinRows(join, entity: joinEntity, of: objectID.primaryKey)
        } catch {
            // A setter cannot throw: a change made on a graph this context cannot read would be
            // made blind, so it is not made.
            context.logger.error(
                "cannot change a many-to-many relationship", metadata: ["object": "\(objectID)", "error": "\(error)"])
            return
        }
        let wanted = Set(objects.map(\.objectID.primaryKey))
        var present = Set<Int64>()
        for (id, row) in rows {
            guard case let .integer(key) = row.values[destinationIndex] else { continue }
            if wanted.contains(key) {
                present.insert(key)
            } else {
                context.delete(context.register(id: id, entity: joinEntity, row: row))
            }
        }
        for object in objects where present.insert(object.objectID.primaryKey).inserted {
            var values = joinEntity.defaultValues
            values[joinEntity.propertyIndex(join.sourceColumn)] = .integer(objectID.primaryKey)
            values[destinationIndex] = .integer(object.objectID.primaryKey)
            context.insertJoinRow(entity: joinEntity, values: values)
        }
    }
}

extension ManagedObjectContext {
    /// The join entity of a many-to-many, which the model made with the two sides' entities.
    func joinEntity(_ join: ManyToManyJoin) -> EntityDescription {
        guard let entity = model.entity(named: join.entityName) else {
            preconditionFailure("\(join.entityName) is not in this context's model")
        }
        return entity
    }

    /// The join rows whose source column holds `key`, as this context sees them.
    func joinRows(_ join: ManyToManyJoin, entity: EntityDescription, of key: Int64) throws -> [(ObjectID, RowSnapshot)] {
        let request = FetchRequest<ManagedObject>(
            predicate: FetchPredicate(.compare(property: join.sourceColumn, .equal, .integer(key))))
        return try fetchRows(request, entity: entity, keysOnly: false)
    }

    /// The keys of the objects a many-to-many relationship of `object` reaches, each once (two
    /// contexts that add the same pair each insert a row for it).
    func keysReached(by relationship: RelationshipDescription, from object: ManagedObject) throws -> Set<Int64> {
        let join = ManyToManyJoin(source: object.entity.name, relationship: relationship)
        let entity = joinEntity(join)
        let index = entity.propertyIndex(join.destinationColumn)
        var keys = Set<Int64>()
        for (_, row) in try joinRows(join, entity: entity, of: object.objectID.primaryKey) {
            if case let .integer(key) = row.values[index] { keys.insert(key) }
        }
        return keys
    }

    /// Inserts a join row: a pair of a many-to-many, made here and never handed out.
    func insertJoinRow(entity: EntityDescription, values: [StoreValue]) {
        if reservedKeys.isEmpty {
            reservedKeys = store.reservePrimaryKeys()
        }
        let id = ObjectID(storeIdentifier: storeIdentifier, entityName: entity.name, primaryKey: reservedKeys.removeFirst())
        registerInserted(makeObject(id: id, entity: entity, values: values, stamp: store.nextStamp(), state: .inserted))
    }

    /// Deletes the join rows of the objects `ids` names, for each many-to-many of theirs whose
    /// delete rule is not `.noAction`: their pairs go with them (Core Data's nullify of a
    /// many-to-many), and the other side stops listing them.
    func deleteJoinRows<IDs: Sequence<ObjectID>>(of ids: IDs) throws {
        guard model.hasManyToMany else { return }
        for id in ids {
            guard let entity = model.entity(named: id.entityName) else { continue }
            for relationship in entity.relationships where relationship.deleteRule != .noAction {
                guard let destination = model.entity(named: relationship.destinationEntityName),
                    relationship.isManyToMany(destination: destination)
                else { continue }
                let join = ManyToManyJoin(source: entity.name, relationship: relationship)
                let joinEntity = joinEntity(join)
                for (rowID, row) in try joinRows(join, entity: joinEntity, of: id.primaryKey) {
                    delete(register(id: rowID, entity: joinEntity, row: row))
                }
            }
        }
    }

    /// The objects a many-to-many relationship of `object` reaches, as this context sees them.
    func objects(reachedByManyToMany relationship: RelationshipDescription, from object: ManagedObject) throws
        -> [ManagedObject]
    {
        try keysReached(by: relationship, from: object).sorted().compactMap { key in
            let id = ObjectID(storeIdentifier: storeIdentifier, entityName: relationship.destinationEntityName, primaryKey: key)
            return try? existingObject(with: id)
        }
    }
}

extension ManagedObject {
    /// The relationship of that name when it is one side of a many-to-many of this object's
    /// model; nil for a one-to-many.
    func manyToManyRelationship(named name: String) -> RelationshipDescription? {
        guard let relationship = entity.relationship(named: name), relationship.kind == .toMany,
            let destination = managedObjectContext?.model.entity(named: relationship.destinationEntityName),
            relationship.isManyToMany(destination: destination)
        else { return nil }
        return relationship
    }
}

extension ManagedObjectContext {
    /// A condition on a many-to-many, as this context sees both the join rows and the destination's
    /// rows: the keys of the sources that pass it (see `resolvingRelationships`). Counts each
    /// destination once per source, as the store's subquery does.
    func resolveManyToMany(
        _ condition: RelatedCondition, through join: ManyToManyJoin, destination: EntityDescription
    ) throws -> PredicateNode {
        let matching = Set(
            try fetchRows(
                FetchRequest<ManagedObject>(predicate: FetchPredicate(condition.predicate)), entity: destination,
                keysOnly: true
            ).map(\.0.primaryKey))
        let joinEntity = joinEntity(join)
        let sourceIndex = joinEntity.propertyIndex(join.sourceColumn)
        let destinationIndex = joinEntity.propertyIndex(join.destinationColumn)
        var reached: [Int64: Set<Int64>] = [:]
        for (_, row) in try fetchRows(FetchRequest<ManagedObject>(), entity: joinEntity, keysOnly: false) {
            guard case let .integer(source) = row.values[sourceIndex],
                case let .integer(target) = row.values[destinationIndex], matching.contains(target)
            else { continue }
            reached[source, default: []].insert(target)
        }
        // Sources that reach nothing have no entry: when 0 passes, list those that fail.
        if condition.holds(for: 0) {
            return .not(.primaryKeyIn(Set(reached.filter { !condition.holds(for: $0.value.count) }.keys)))
        }
        return .primaryKeyIn(Set(reached.filter { condition.holds(for: $0.value.count) }.keys))
    }
}
