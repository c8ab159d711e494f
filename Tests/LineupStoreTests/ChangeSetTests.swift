import Foundation
@testable import LineupStore
import Testing

/// The segments a context keeps its unsaved changes in (see `ChangeSet`).
@Suite struct ChangeSetTests {
    private let store = UUID()
    // From the shared model, derived once, rather than through `Entry.entity`: tests that start
    // together would otherwise all look up the entity cache at once.
    private let entry = testModel.entity(named: "Entry")!
    private let station = testModel.entity(named: "Station")!

    private func id(_ key: Int64, _ entity: EntityDescription? = nil) -> ObjectID {
        ObjectID(storeIdentifier: store, entityName: (entity ?? entry).name, primaryKey: key)
    }

    private func change(_ kind: RowChange.Kind, _ location: String, entity: EntityDescription? = nil) -> RowChange {
        let entity = entity ?? entry
        var values = entity.defaultValues
        if let index = entity.index(ofProperty: "location") { values[index] = .text(location) }
        if let index = entity.index(ofProperty: "stationID") { values[index] = .text(location) }
        return RowChange(
            kind: kind, mergePolicy: nil, entity: entity, values: values, changedMask: .empty, baseValues: nil,
            baseStamp: kind == .insert ? 0 : 1, stamp: 2)
    }

    private func segment(_ rows: [(Int64, RowChange)]) -> ChangeSegment {
        var builder = ChangeSegment.Builder()
        for (key, change) in rows { builder.append(change, for: id(key)) }
        return builder.build()
    }

    private func locations(_ segment: ChangeSegment) -> [String] {
        segment.rows.map { row in
            guard case let .text(text) = row.change.values[entry.index(ofProperty: "location")!] else { return "?" }
            return text
        }
    }

    @Test func builderSortsByKeyAndKeepsTheLastChangeOfAKey() {
        let built = segment([(30, change(.insert, "c")), (10, change(.insert, "a")), (20, change(.insert, "b")), (10, change(.insert, "a2"))])
        #expect(built.rows.map(\.id.primaryKey) == [10, 20, 30])
        #expect(locations(built) == ["a2", "b", "c"])
        #expect(built.insertsOnly)
        #expect(!built.hasUniquenessConstraints)
    }

    @Test func flagsSayWhetherRowsMustBeLookedAtOneByOne() {
        let mixed = segment([(1, change(.insert, "a")), (2, change(.update, "b"))])
        #expect(!mixed.insertsOnly)
        var builder = ChangeSegment.Builder()
        builder.append(change(.insert, "42002", entity: station), for: id(3, station))
        #expect(builder.build().hasUniquenessConstraints)
    }

    @Test func lookUpIsByTheWholeIDAndRemovalTakesTheRowOut() {
        var built = segment([(5, change(.insert, "five")), (7, change(.insert, "seven")), (9, change(.insert, "nine"))])
        #expect(built[id(7)]?.values == change(.insert, "seven").values)
        #expect(built[id(8)] == nil)
        #expect(built[id(7, station)] == nil, "same key, other entity: not this row")
        #expect(built.removeValue(forKey: id(7))?.kind == .insert)
        #expect(built.rows.map(\.id.primaryKey) == [5, 9])
        #expect(built.removeValue(forKey: id(7)) == nil)
    }

    @Test func mergingTwoSegmentsKeepsKeyOrderAndTheNewerChange() {
        let older = segment([(1, change(.insert, "old1")), (3, change(.insert, "old3")), (5, change(.insert, "old5"))])
        let newer = segment([(2, change(.insert, "new2")), (3, change(.update, "new3"))])
        let merged = ChangeSegment(newer: newer, older: older)
        #expect(merged.rows.map(\.id.primaryKey) == [1, 2, 3, 5])
        #expect(locations(merged) == ["old1", "new2", "new3", "old5"])
        #expect(!merged.insertsOnly)
    }

    @Test func aSetReadsTheNewestSegmentFirstAndRemovesAKeyFromEverySegment() {
        var set = ChangeSet()
        set.prepend(segment([(1, change(.insert, "first")), (2, change(.insert, "two"))]))
        set.prepend(segment([(1, change(.update, "second"))]))
        #expect(set.segments.count == 2)
        #expect(set.count == 3)
        #expect(set[id(1)]?.kind == .update)
        #expect(!set.insertsOnly)
        #expect(set.map(\.0.primaryKey) == [1, 1, 2], "newest segment first")
        #expect(set.removeValue(forKey: id(1))?.kind == .update)
        #expect(set[id(1)] == nil, "older changes of the key are gone too")
        #expect(set.segments.count == 1, "a segment left empty is dropped")
        #expect(set.count == 1)
    }

    @Test func compactionMergesTheSmallestNeighboursAndKeepsEveryRow() {
        var set = ChangeSet()
        // Oldest first: sizes 5, 1, 1, 4 (newest). Prepending makes the list newest first.
        var key: Int64 = 0
        for size in [5, 1, 1, 4] {
            var rows: [(Int64, RowChange)] = []
            for _ in 0..<size {
                key += 1
                rows.append((key, change(.insert, "row\(key)")))
            }
            set.prepend(segment(rows))
        }
        #expect(set.segments.map(\.count) == [4, 1, 1, 5])
        set.compact(toAtMost: 3)
        #expect(set.segments.map(\.count) == [4, 2, 5])
        set.compact(toAtMost: 1)
        #expect(set.segments.map(\.count) == [11])
        #expect(set.segments[0].rows.map(\.id.primaryKey) == Array(1...11))
    }
}
