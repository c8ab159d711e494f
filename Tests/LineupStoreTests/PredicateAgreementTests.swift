import Foundation
import LineupStore
import Testing

/// What the fetch-predicate fuzzer (scripts/fuzz.sh fetch-predicate) found: places where a
/// predicate matched different rows in SQL (saved rows) and in memory (unsaved ones), and a
/// value that did not read back as saved. Each test saves rows, inserts the same values unsaved
/// in another context, and fetches once, so that both evaluations answer the same question.
@Suite struct PredicateAgreementTests {
    /// The locations of the rows the predicate matched: (saved, unsaved).
    func matches(
        _ store: StoreKind, locations: [String], scores: [Double] = [], _ predicate: FetchPredicate<Entry>
    ) throws -> (saved: [String], unsaved: [String]) {
        let stack = try TemporaryStack(store)
        let saver = stack.container.newTaskContext(name: "saved")
        func insert(into context: ManagedObjectContext, rating: Int) {
            for (index, location) in locations.enumerated() {
                let entry = context.insertEntry(location, rating: rating)
                entry.score = index < scores.count ? scores[index] : 0
                entry.height = "\(index)"
            }
        }
        try saver.performAndWait {
            insert(into: saver, rating: 1)
            try saver.save()
        }
        try stack.container.flush()
        let context = stack.container.newTaskContext(name: "unsaved")
        return try context.performAndWait {
            insert(into: context, rating: 2)
            let found = try context.fetch(FetchRequest<Entry>(predicate: predicate, sortedBy: [.ascending(\.height)]))
            return (
                found.filter { $0.rating == 1 }.map { $0.location ?? "NULL" },
                found.filter { $0.rating == 2 }.map { $0.location ?? "NULL" }
            )
        }
    }

    @Test("contains takes a NUL in the substring literally (SQL's LIKE pattern ended there)", arguments: StoreKind.allCases)
    func containsWithNUL(_ store: StoreKind) throws {
        // PostgreSQL's text holds no NUL (a save of one is refused): there no row matches.
        let holdsNUL = store == .sqlite
        let found = try matches(store, locations: ["", "ab"] + (holdsNUL ? ["a\0b"] : []), .contains(\.location, "\0"))
        #expect(found.saved == (holdsNUL ? ["a\0b"] : []))
        #expect(found.unsaved == (holdsNUL ? ["a\0b"] : []))
    }

    @Test("contains takes % and _ literally and folds ASCII case only", arguments: StoreKind.allCases)
    func containsLiterally(_ store: StoreKind) throws {
        let found = try matches(store, locations: ["50%", "5_0", "500", "ÉTÉ", "été", "Steamer"], .contains(\.location, "0%") || .contains(\.location, "_") || .contains(\.location, "STEAM") || .contains(\.location, "ét"))
        #expect(found.saved == ["50%", "5_0", "été", "Steamer"])
        #expect(found.unsaved == found.saved)
    }

    @Test("text compares by bytes: a composed and a decomposed é are different values", arguments: StoreKind.allCases)
    func textByBytes(_ store: StoreKind) throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let equal = try matches(store, locations: [composed, decomposed], \.location == composed)
        #expect(equal.saved == [composed] && equal.unsaved == [composed])
        let member = try matches(store, locations: [composed, decomposed], .isIn(\.location, [decomposed]))
        #expect(member.saved == [decomposed] && member.unsaved == [decomposed])
        let found = try matches(store, locations: [composed, decomposed], .contains(\.location, "e"))
        #expect(found.saved == [decomposed] && found.unsaved == [decomposed])
    }

    @Test("a composed é set over a decomposed one is a change, and is saved", arguments: StoreKind.allCases)
    func canonicallyEquivalentChangeIsSaved(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let entry = context.insertEntry("cafe\u{301}", rating: 1)
            try context.save()
            entry.location = "caf\u{E9}"
            #expect(context.hasChanges)
            try context.save()
        }
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        let saved = try reader.performAndWait { try reader.fetch(FetchRequest<Entry>(predicate: .all)).map { $0.location ?? "" } }
        #expect(saved.count == 1 && saved[0].utf8.elementsEqual("caf\u{E9}".utf8))
    }

    @Test("every number differs from NaN, and no other comparison with NaN holds", arguments: StoreKind.allCases)
    func comparisonsWithNaN(_ store: StoreKind) throws {
        let locations = ["a", "b"]
        let scores = [1.5, -0.0]
        let differs = try matches(store, locations: locations, scores: scores, \.score != .nan)
        #expect(differs.saved == ["a", "b"] && differs.unsaved == ["a", "b"])
        for predicate: FetchPredicate<Entry> in [\.score == .nan, \.score < .nan, \.score >= .nan] {
            let found = try matches(store, locations: locations, scores: scores, predicate)
            #expect(found.saved.isEmpty && found.unsaved.isEmpty)
        }
    }

    @Test("a NaN is refused at save, naming the attribute, rather than read back as NULL", arguments: StoreKind.allCases)
    func nanIsRefused(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let entry = context.insertEntry("Pleasure Point", rating: 3)
            entry.date = Date(timeIntervalSince1970: .nan)
            let error = try #require(throws: StoreError.self) { try context.save() }
            #expect(error.code == .validationFailed)
            #expect(error.description.contains("`date` is NaN"), "\(error)")
            entry.date = nil
            try context.save()
        }
        #expect(try stack.container.flush().rowsWritten == 1)
    }

    @Test("a batch update that sets a NaN is refused, as a save is", arguments: StoreKind.allCases)
    func batchUpdateRefusesNaN(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            _ = context.insertEntry("Pleasure Point", rating: 3)
            try context.save()
        }
        try stack.container.flush()
        try context.performAndWait {
            let error = try #require(throws: StoreError.self) {
                try context.execute(BatchUpdateRequest<Entry>(predicate: .all, set: [.set(\.score, to: .nan)]))
            }
            #expect(error.code == .validationFailed && error.description.contains("`score` is set to NaN"), "\(error)")
        }
    }
}
