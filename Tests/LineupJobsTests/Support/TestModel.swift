import LineupStore

/// The one entity of the tests' model: a labelled row.
final class TestRow: ManagedObject {
    @Attribute("label") var label: String?
    @Attribute("value") var value: Int?
}

let testModel = ManagedObjectModel(TestRow.self)
