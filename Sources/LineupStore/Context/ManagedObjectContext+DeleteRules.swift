extension ManagedObjectContext {
    /// Applies the delete rules of the objects this save deletes, transitively for cascades: the
    /// objects that a `.nullify` to-many reaches lose their inverse, the ones a `.cascade` reaches
    /// are deleted too (and their rules apply). The objects reached are found as this context
    /// sees them, unsaved changes included; objects deleted in the same save do not count.
    ///
    /// The whole closure is worked out before anything changes: a `.deny` found anywhere in it
    /// throws ``StoreError`` `.deleteDenied`, naming the objects, and leaves the context as it was.
    /// Once applied, the cascaded deletes and nullified keys are this context's own unsaved
    /// changes: a save that then fails for another reason keeps them, as Core Data keeps what
    /// its delete propagation did.
    func applyDeleteRules() throws {
        var doomed = Set<ObjectID>()
        var worklist: [ManagedObject] = []
        for object in changedObjects.values {
            guard case .deleted(.pending) = object.state else { continue }
            doomed.insert(object.objectID)
            if !object.entity.relationships.isEmpty { worklist.append(object) }
        }
        guard !worklist.isEmpty else { return }
        var cascaded: [ManagedObject] = []
        var nullified: [(object: ManagedObject, property: Int)] = []
        var denials: [String] = []
        while let object = worklist.popLast() {
            for relationship in object.entity.relationships where relationship.deleteRule != .noAction {
                let reached = try objects(reachedBy: relationship, from: object).filter {
                    !doomed.contains($0.objectID) && !$0.isDeleted
                }
                guard !reached.isEmpty else { continue }
                switch relationship.deleteRule {
                case .nullify:
                    // A to-one needs nothing: the to-many inverse is derived from it.
                    // A many-to-many's pairs go with the deleted object (`deleteJoinRows`).
                    guard relationship.kind == .toMany, let inverse = relationship.inverseName,
                        let destination = model.entity(named: relationship.destinationEntityName),
                        !relationship.isManyToMany(destination: destination)
                    else { continue }
                    let property = destination.propertyIndex(inverse)
                    nullified += reached.map { (object: $0, property: property) }
                case .cascade:
                    for destination in reached where doomed.insert(destination.objectID).inserted {
                        cascaded.append(destination)
                        worklist.append(destination)
                    }
                case .deny:
                    denials.append(
                        "\(object.objectID) (\(object.entity.name).\(relationship.name)) still reaches "
                            + reached.map(\.objectID.description).joined(separator: ", "))
                case .noAction:
                    break
                }
            }
        }
        guard denials.isEmpty else {
            throw StoreError(.deleteDenied, "delete denied: " + denials.sorted().joined(separator: "; "))
        }
        try deleteJoinRows(of: doomed)
        for (object, property) in nullified where !doomed.contains(object.objectID) {
            object.setStoreValue(.null, at: property)
        }
        for object in cascaded {
            delete(object)
        }
    }

    /// The objects a relationship of `object` reaches, as this context sees them.
    private func objects(reachedBy relationship: RelationshipDescription, from object: ManagedObject) throws
        -> [ManagedObject]
    {
        guard let destination = model.entity(named: relationship.destinationEntityName) else { return [] }
        if relationship.isManyToMany(destination: destination) {
            return try objects(reachedByManyToMany: relationship, from: object)
        }
        switch relationship.kind {
        case .toMany:
            guard let inverse = relationship.inverseName else { return [] }
            // Typed as the base class: the rows come back as objects of the destination's own class.
            let request = FetchRequest<ManagedObject>(
                predicate: FetchPredicate(.compare(property: inverse, .equal, .integer(object.objectID.primaryKey))))
            return try fetchRows(request, entity: destination, keysOnly: false).map {
                register(id: $0.0, entity: destination, row: $0.1)
            }
        case .toOne:
            let value = object.values.isEmpty ? .null : object.values[object.entity.propertyIndex(relationship.name)]
            guard case let .integer(key) = value else { return [] }
            let id = ObjectID(storeIdentifier: storeIdentifier, entityName: destination.name, primaryKey: key)
            guard let reached = try? existingObject(with: id) else { return [] }
            return [reached]
        }
    }
}
