import LineupStore

/// The one entity of the tests' model: a labelled row.
final class TestRow: ManagedObject {
    @Attribute("label") var label: String?
    @Attribute("value") var value: Int?
}

/// A row with a natural key: what an import upserts.
final class KeyedRow: ManagedObject {
    @Attribute("key") var key: String?
    @Attribute("value") var value: Int?

    override class var uniquenessConstraints: [[String]] { [["key"]] }
}

let testModel = ManagedObjectModel(TestRow.self, KeyedRow.self)
