extension StoreSQL {
    /// The statements that delete the pairs (join rows of the model's many-to-many relationships)
    /// of the rows of `entity` that `condition` matches: a batch delete runs them first, in its
    /// own transaction, so that no pair outlives either of its rows. `condition` is the batch's
    /// own, with the same arguments.
    package static func pairDeletions(
        ofRowsOf entity: EntityDescription, in model: ManagedObjectModel, matching condition: String
    ) -> [String] {
        guard model.hasManyToMany else { return [] }
        var statements: [String] = []
        for join in model.entities where join.isJoinEntity {
            for column in join.properties where column.destinationEntityName == entity.name {
                statements.append(
                    "DELETE FROM \(quoted(join.name)) WHERE \(quoted(column.name)) IN (SELECT pk FROM \(quoted(entity.name)) WHERE \(condition))"
                )
            }
        }
        return statements
    }
}
