extension ManagedObjectContext {
    /// Calls `body` with every object of `entity` that this context holds with its values loaded
    /// and not deleted: the objects whose values this context shows as they are, whatever its
    /// parent has since saved. Walks the whole registry, so it is only for reads that must agree
    /// with those values (a to-many relationship's), not for the common path.
    func forEachLoadedObject(of entity: EntityDescription, _ body: (ManagedObject) -> Void) {
        preconditionOnQueue()
        func visit(_ object: ManagedObject) {
            guard object.entity === entity else { return }
            switch object.state {
            case .clean, .inserted: body(object)
            case .fault, .deleted, .inaccessible, .detached: return
            }
        }
        for object in changedObjects.values {
            visit(object)
        }
        for (id, entry) in registry where changedObjects[id] == nil {
            if let object = entry.object { visit(object) }
        }
    }
}
