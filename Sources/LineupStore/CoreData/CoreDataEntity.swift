/// An entity of a Core Data SQLite store, as listed in its `Z_PRIMARYKEY` table.
///
/// A sub-entity shares its root entity's table; its rows are told apart by `Z_ENT`.
/// ``rowCount`` counts the rows of the entity and of its sub-entities, as a Core Data fetch
/// of the entity would.
public struct CoreDataEntity: Sendable, Hashable {
    /// The entity name, in its original case (`Z_PRIMARYKEY.Z_NAME`, e.g. `JournalEntry`).
    public let name: String
    /// The entity's `Z_ENT` number.
    public let entityNumber: Int64
    /// The parent entity's `Z_ENT` (`Z_SUPER`), nil for a root entity.
    public let superentityNumber: Int64?
    /// The table holding the rows (`Z` + the root entity's upper-cased name).
    public let tableName: String
    /// Rows of this entity and its sub-entities.
    public let rowCount: Int
    /// The highest primary key Core Data has handed out (`Z_PRIMARYKEY.Z_MAX`).
    public let maxPrimaryKey: Int64
    /// The attribute columns, in table order: every column except `Z_PK`, `Z_ENT` and
    /// `Z_OPT`. Relationships appear as their foreign-key columns. A sub-entity sees all the
    /// columns of its root entity's table, because the store does not say which are its own.
    public let attributes: [CoreDataAttribute]

    /// The `Z_ENT` values that belong to this entity: its own and its sub-entities'.
    let rowEntityNumbers: [Int64]
    /// Whether the table holds rows of other entities too, so reads filter on `Z_ENT`.
    let sharesTable: Bool
    let hasEntityColumn: Bool
    let hasVersionColumn: Bool
}

/// One attribute column of a Core Data entity.
public struct CoreDataAttribute: Sendable, Hashable {
    /// The attribute name: the column name without its `Z` prefix, lower-cased, unless the
    /// reader was given the model's name for it. Core Data upper-cases attribute names in
    /// column names, so `waveHeight` reads back as `waveheight` without that name.
    public let name: String
    /// The column name, e.g. `ZLOCATION`.
    public let columnName: String
    /// The column's declared SQL type, e.g. `VARCHAR` or `TIMESTAMP`.
    public let declaredType: String
}
