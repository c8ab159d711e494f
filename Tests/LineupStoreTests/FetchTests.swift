import Foundation
import LineupStore
import Testing

@Suite struct FetchTests {
    /// Saved to disk: A(1) B(2) C(3) D(4) E(5), locations "Spot A"... with ratings 1...5.
    private func seededStack(_ store: StoreKind) throws -> TemporaryStack {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            for (offset, letter) in ["A", "B", "C", "D", "E"].enumerated() {
                seed.insertEntry("Spot \(letter)", rating: offset + 1)
            }
            try seed.save()
        }
        try stack.container.flush()
        return stack
    }

    @Test(arguments: StoreKind.allCases) func predicateSortLimitOffset(_ store: StoreKind) throws {
        let stack = try seededStack(store)
        let context = stack.container.newTaskContext(name: "reader")
        try context.performAndWait { () throws in
            let request = FetchRequest<Entry>(predicate: \.rating >= 2, sortedBy: [.descending(\.rating)], limit: 2, offset: 1)
            #expect(try context.fetch(request).map(\.location) == ["Spot D", "Spot C"])
            #expect(try context.count(for: FetchRequest<Entry>(predicate: \.rating >= 2)) == 4)
            #expect(try context.count(for: FetchRequest<Entry>(predicate: \.rating == nil)) == 0)
            let either: FetchPredicate<Entry> = \.rating == 1 || \.location == "Spot E"
            #expect(try context.fetch(FetchRequest(predicate: either, sortedBy: [.ascending(\.rating)])).map(\.rating) == [1, 5])
            #expect(try context.fetch(FetchRequest<Entry>(predicate: !(\.rating > 1))).map(\.rating) == [1])
            #expect(try context.fetch(FetchRequest<Entry>(predicate: .contains(\.location, "spot c"))).map(\.rating) == [3])
            #expect(try context.fetch(FetchRequest<Entry>(predicate: .isIn(\.rating, [2, 4]), sortedBy: [.ascending(\.rating)])).map(\.rating) == [2, 4])
            #expect(try context.fetchObjectIDs(FetchRequest<Entry>()).count == 5)
        }
    }

    /// The store sorts as the contexts sort their unsaved rows: NULL before every value, text by
    /// its bytes (uppercase before lowercase, a decomposed é before a composed one). Saved and
    /// unsaved copies of the same rows must come out interleaved, row by row.
    @Test(arguments: StoreKind.allCases) func theStoreSortsAsTheContextsSort(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let locations: [String?] = ["b", nil, "B", "caf\u{E9}", "cafe\u{301}", "a", nil, "\u{1F30A}"]
        func insert(into context: ManagedObjectContext, rating: Int) {
            for location in locations {
                let entry = Entry(context: context)
                entry.location = location
                entry.rating = rating
            }
        }
        let saver = stack.container.newTaskContext(name: "saved")
        try saver.performAndWait {
            insert(into: saver, rating: 1)
            try saver.save()
        }
        try stack.container.flush()
        let context = stack.container.newTaskContext(name: "unsaved")
        try context.performAndWait {
            insert(into: context, rating: 2)
            // Bytes: Swift's String == takes the two é for one.
            func bytes(_ entries: [Entry]) -> [[UInt8]?] { entries.map { $0.location.map { Array($0.utf8) } } }
            let expected = [nil, nil, "B", "a", "b", "cafe\u{301}", "caf\u{E9}", "\u{1F30A}"].map { $0.map { Array($0.utf8) } }
            for ascending in [true, false] {
                let sort: FetchSort<Entry> = ascending ? .ascending(\.location) : .descending(\.location)
                let order = ascending ? expected : expected.reversed()
                let found = bytes(try context.fetch(FetchRequest<Entry>(sortedBy: [sort])))
                #expect(found == order.flatMap { [$0, $0] }, "saved and unsaved, ascending: \(ascending)")
                let saved = bytes(try context.fetch(FetchRequest<Entry>(sortedBy: [sort], includesPendingChanges: false)))
                #expect(saved == order, "the store alone, ascending: \(ascending)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func grandchildSeesAMainContextInsertNotYetSavedToDisk(_ store: StoreKind) throws {
        let stack = try seededStack(store)
        stack.main.performAndWait {
            _ = stack.main.insertEntry("Main only", rating: 5)
        }
        let child = stack.container.newTaskContext(name: "child")
        let grandchild = child.newChildContext(name: "grandchild")
        try grandchild.performAndWait {
            let best = try grandchild.fetch(FetchRequest<Entry>(predicate: \.rating == 5, sortedBy: [.ascending(\.location)]))
            #expect(best.map(\.location) == ["Main only", "Spot E"])
            #expect(try grandchild.count(for: FetchRequest<Entry>()) == 6)
            let onlySaved = FetchRequest<Entry>(predicate: \.rating == 5, includesPendingChanges: false)
            #expect(try grandchild.fetch(onlySaved).map(\.location) == ["Spot E"])
        }
        #expect(try stack.rowsOnDisk("Entry") == 5)
    }

    @Test(arguments: StoreKind.allCases) func pendingChangesOfEveryAncestorAreOverlaid(_ store: StoreKind) throws {
        let stack = try seededStack(store)
        let child = stack.container.newTaskContext(name: "child")
        try child.performAndWait {
            let all = try child.fetch(FetchRequest<Entry>(sortedBy: [.ascending(\.rating)]))
            all[0].rating = 10          // A: updated in the child, now matches >= 5
            child.delete(all[4])        // E: deleted in the child
            try child.save()            // both now pending in main only
        }
        let grandchild = child.newChildContext(name: "grandchild")
        try grandchild.performAndWait {
            let updatedInGrandchild = try grandchild.fetch(FetchRequest<Entry>(predicate: \.location == "Spot D"))[0]
            updatedInGrandchild.rating = 1   // D: no longer matches, unsaved in the grandchild
            grandchild.insertEntry("New", rating: 7)
            let request = FetchRequest<Entry>(predicate: \.rating >= 5, sortedBy: [.descending(\.rating)])
            #expect(try grandchild.fetch(request).map(\.location) == ["Spot A", "New"])
            #expect(try grandchild.count(for: request) == 2)
            var limited = request
            limited.fetchLimit = 1
            limited.fetchOffset = 1
            #expect(try grandchild.fetch(limited).map(\.location) == ["New"])
        }
    }

    @Test(arguments: StoreKind.allCases) func batchedFetchReturnsFaultsThatLoadABatchAtATime(_ store: StoreKind) throws {
        let stack = try seededStack(store)
        let context = stack.container.newTaskContext(name: "reader")
        try context.performAndWait { () throws in
            let results = try context.fetch(FetchRequest<Entry>(sortedBy: [.ascending(\.rating)], batchSize: 2))
            #expect(results.count == 5)
            #expect(results.allSatisfy { $0.isFault })
            #expect(results[0].location == "Spot A")
            #expect(!results[1].isFault, "the first use loaded its whole batch")
            #expect(results[2].isFault, "the next batch is not loaded yet")
            #expect(results.map(\.rating) == [1, 2, 3, 4, 5])
        }
    }

    @Test(arguments: StoreKind.allCases) func relationshipsAndReferencePredicates(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let station = Station(context: context)
            station.stationID = "42002"
            let reading = Reading(context: context)
            reading.station = station
            reading.time = Date(timeIntervalSince1970: 1_645_960_800)
            reading.waveHeight = 2.5
            try context.save()
            let found = try context.fetch(FetchRequest<Reading>(predicate: .refers(\.station, to: station.objectID)))
            #expect(found.count == 1)
            #expect(found[0].station === station)
        }
        try stack.container.flush()
        let reader = stack.container.newTaskContext(name: "reader")
        try reader.performAndWait {
            let reading = try reader.fetch(FetchRequest<Reading>())[0]
            #expect(reading.station?.stationID == "42002")
            #expect(reading.time == Date(timeIntervalSince1970: 1_645_960_800))
        }
    }
}

@Suite struct AggregateTests {
    @Test(arguments: StoreKind.allCases) func groupedAggregatesOverSavedRows(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "seed")
        try context.performAndWait {
            let january = Date(timeIntervalSince1970: 1_704_067_200)   // 2024-01-01T00:00:00Z
            let july = Date(timeIntervalSince1970: 1_719_792_000)      // 2024-07-01T00:00:00Z
            for (location, rating, date) in [("A", 2, january), ("A", 4, july), ("A", 5, july), ("B", 3, january)] {
                let entry = context.insertEntry(location, rating: rating)
                entry.date = date
            }
            context.insertEntry("B", rating: nil)
            try context.save()
        }
        try stack.container.flush()
        let rows = try context.performAndWait {
            try context.aggregate(
                AggregateRequest<Entry>(
                    groupBy: [.property(\.location, as: "location")],
                    aggregates: [.count(as: "sessions"), .count(\.rating, as: "rated"), .average(\.rating, as: "mean"), .maximum(\.rating, as: "best")]))
        }
        #expect(rows.count == 2)
        #expect(rows[0] == ["location": .text("A"), "sessions": .integer(3), "rated": .integer(3), "mean": .real(11.0 / 3.0), "best": .integer(5)])
        #expect(rows[1] == ["location": .text("B"), "sessions": .integer(2), "rated": .integer(1), "mean": .real(3), "best": .integer(3)])
        let months = try context.performAndWait {
            try context.aggregate(
                AggregateRequest<Entry>(
                    predicate: \.location == "A", groupBy: [.month(of: \.date, as: "month")], aggregates: [.count(as: "n")]))
        }
        #expect(months == [["month": .integer(1), "n": .integer(1)], ["month": .integer(7), "n": .integer(2)]])
        let days = try context.performAndWait {
            try context.aggregate(
                AggregateRequest<Entry>(
                    predicate: \.location == "A", groupBy: [.day(of: \.date, as: "day")], aggregates: [.count(as: "n")]))
        }
        #expect(days == [["day": .text("2024-01-01"), "n": .integer(1)], ["day": .text("2024-07-01"), "n": .integer(2)]])
    }

    /// The same groups as a `Decodable` type, as GRDB decodes rows: each property from the value
    /// of its name; NULL into an optional; a name the request lacks, or NULL into a non-optional
    /// property, is an error that names it.
    @Test(arguments: StoreKind.allCases) func groupsDecodeIntoATypeByName(_ store: StoreKind) throws {
        struct PerLocation: Decodable, Equatable {
            var location: String
            var sessions: Int
            var mean: Double?
            var best: Int?
            var lastSession: Date?
        }
        struct Misnamed: Decodable {
            var location: String
            var session: Int
        }
        struct MeanNeeded: Decodable {
            var mean: Double
        }
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "seed")
        let july = Date(timeIntervalSince1970: 1_719_792_000)   // 2024-07-01T00:00:00Z
        try context.performAndWait {
            context.insertEntry("A", rating: 4).date = july
            context.insertEntry("A", rating: 5).date = july
            context.insertEntry("B", rating: nil)
            try context.save()
        }
        try stack.container.flush()
        let request = AggregateRequest<Entry>(
            groupBy: [.property(\.location, as: "location")],
            aggregates: [.count(as: "sessions"), .average(\.rating, as: "mean"), .maximum(\.rating, as: "best"), .maximum(\.date, as: "lastSession")])
        let rows = try context.performAndWait { try context.aggregate(request, as: PerLocation.self) }
        #expect(
            rows == [
                PerLocation(location: "A", sessions: 2, mean: 4.5, best: 5, lastSession: july),
                PerLocation(location: "B", sessions: 1, mean: nil, best: nil, lastSession: nil),
            ])
        let misnamed = #expect(throws: DecodingError.self) {
            try context.performAndWait { try context.aggregate(request, as: Misnamed.self) }
        }
        #expect(String(describing: misnamed).contains("no group key or aggregate `session`"), "\(String(describing: misnamed))")
        let null = #expect(throws: DecodingError.self) {
            try context.performAndWait {
                try context.aggregate(AggregateRequest<Entry>(predicate: \.location == "B", aggregates: [.average(\.rating, as: "mean")]), as: MeanNeeded.self)
            }
        }
        #expect(String(describing: null).contains("the aggregate `mean` is NULL, not a Double"), "\(String(describing: null))")
    }

    /// SurfJournal's heights are the strings the surfer typed, and the `statistics` job averages
    /// them: PostgreSQL has no avg of text, so the store reads each as SQLite does.
    @Test(arguments: StoreKind.allCases) func anAverageOfTextReadsEachStringsLeadingNumber(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "seed")
        try context.performAndWait {
            for height in ["3.9", "2", "flat", " 1.5 ft", nil, "1e1x", ".5"] as [String?] {
                context.insertEntry("A").height = height
            }
            try context.save()
        }
        try stack.container.flush()
        let rows = try context.performAndWait {
            try context.aggregate(AggregateRequest<Entry>(aggregates: [.average(\.height, as: "mean"), .count(\.height, as: "typed")]))
        }
        #expect(rows.first?["typed"] == .integer(6))
        // 3.9 + 2 + 0 + 1.5 + 10 + 0.5 over the six that are not NULL.
        guard case .real(let mean)? = rows.first?["mean"] else {
            Issue.record("the mean is not a real: \(rows)")
            return
        }
        #expect(abs(mean - 17.9 / 6) < 1e-9, "\(mean)")
    }

    @Test(arguments: StoreKind.allCases) func aggregatesIgnoreUnsavedChanges(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "seed")
        let rows = try context.performAndWait {
            context.insertEntry("A", rating: 1)
            try context.save()
            return try context.aggregate(AggregateRequest<Entry>(aggregates: [.count(as: "n")]))
        }
        #expect(rows == [["n": .integer(0)]])
    }
}

@Suite struct EnumerateTests {
    /// A stack whose store holds one entry at "spot" for each of `ratings`, flushed to disk, and
    /// a task context to read them with.
    static func readerOfFlushedEntries(
        _ store: StoreKind, ratings: Range<Int>
    ) throws -> (TemporaryStack, ManagedObjectContext) {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            for rating in ratings { seed.insertEntry("spot", rating: rating) }
            try seed.save()
        }
        try stack.container.flush()
        return (stack, stack.container.newTaskContext(name: "reader"))
    }

    @Test(arguments: StoreKind.allCases) func enumeratesInBatchesInOrderAndForgetsEachBatch(_ store: StoreKind) throws {
        let (stack, reader) = try Self.readerOfFlushedEntries(store, ratings: 0..<25)
        defer { withExtendedLifetime(stack) {} }
        var sizes: [Int] = []
        var ratings: [Int] = []
        try reader.performAndWait {
            try reader.enumerate(FetchRequest<Entry>(predicate: \.rating >= 3, sortedBy: [.descending(\.rating)]), batchSize: 10) { batch in
                sizes.append(batch.count)
                ratings += batch.map { $0.rating! }
            }
            #expect(reader.registeredObjects.isEmpty)
        }
        #expect(sizes == [10, 10, 2])
        #expect(ratings == Array((3..<25).reversed()))
        var values: [StoreValue] = []
        try reader.performAndWait {
            try reader.enumerateObjectValues(FetchRequest<Entry>(predicate: \.rating < 2, sortedBy: [.ascending(\.rating)]), batchSize: 1) { rows in
                values += rows.map { $0.1[Entry.entity.index(ofProperty: "rating")!] }
            }
        }
        #expect(values == [.integer(0), .integer(1)])
    }

    @Test(arguments: StoreKind.allCases) func pendingChangesAreMergedIntoTheEnumeration(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            for rating in [1, 3] { seed.insertEntry("saved", rating: rating) }
            try seed.save()
        }
        try stack.container.flush()
        let child = stack.container.newTaskContext(name: "child")
        var ratings: [Int] = []
        try child.performAndWait {
            child.insertEntry("pending", rating: 2)
            try child.enumerate(FetchRequest<Entry>(sortedBy: [.ascending(\.rating)]), batchSize: 2) { batch in
                ratings += batch.map { $0.rating! }
            }
        }
        #expect(ratings == [1, 2, 3])
    }

    /// Not Core Data's dictionary results (store only): the values of the objects a fetch gives,
    /// the pending changes of the context and its ancestors included unless the request says not.
    @Test(arguments: StoreKind.allCases) func objectValuesSeeWhatAFetchSees(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let (kept, doomed) = try seed.performAndWait {
            let kept = seed.insertEntry("saved", rating: 1)
            let doomed = seed.insertEntry("saved", rating: 9)
            try seed.save()
            return (kept.objectID, doomed.objectID)
        }
        try stack.container.flush()
        // Saved into the main context but not flushed: what a finished job leaves behind.
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            job.insertEntry("unflushed", rating: 2)
            try job.save()
        }
        let reader = stack.container.newTaskContext(name: "reader")
        let rating = Entry.entity.index(ofProperty: "rating")!
        func ratings(includingPendingChanges: Bool) throws -> [StoreValue] {
            try reader.performAndWait {
                var values: [StoreValue] = []
                let request = FetchRequest<Entry>(
                    sortedBy: [.ascending(\.rating)], includesPendingChanges: includingPendingChanges)
                try reader.enumerateObjectValues(request, batchSize: 2) { rows in
                    values += rows.map { $0.1[rating] }
                }
                return values
            }
        }
        try reader.performAndWait {
            (try reader.existingObject(with: kept) as! Entry).rating = 5
            reader.delete(try reader.existingObject(with: doomed))
            reader.insertEntry("own", rating: 3)
        }
        #expect(try ratings(includingPendingChanges: true) == [.integer(2), .integer(3), .integer(5)])
        #expect(try ratings(includingPendingChanges: false) == [.integer(1), .integer(9)])
    }

    /// No thread of its own: the batches come to the thread of the context's block, and a batch's
    /// code can read the store again (a count) in a task context.
    @Test(arguments: StoreKind.allCases) func theBatchesRunOnTheCallersThread(_ store: StoreKind) throws {
        let (stack, reader) = try Self.readerOfFlushedEntries(store, ratings: 0..<5)
        defer { withExtendedLifetime(stack) {} }
        var onCallersThread: [Bool] = []
        var counts: [Int] = []
        try reader.performAndWait {
            let caller = Thread.current
            try reader.enumerate(FetchRequest<Entry>(), batchSize: 2) { _ in
                onCallersThread.append(Thread.current === caller)
                counts.append(try reader.count(for: FetchRequest<Entry>()))
            }
        }
        #expect(onCallersThread == [true, true, true])
        #expect(counts == [5, 5, 5])
    }

    struct Stop: Error, Equatable {}

    /// A batch's error ends the enumeration and comes out as it is, not as a store error; the
    /// store is left as it was for the next read.
    @Test(arguments: StoreKind.allCases) func aBatchsErrorEndsTheEnumerationAsItIs(_ store: StoreKind) throws {
        let (stack, reader) = try Self.readerOfFlushedEntries(store, ratings: 0..<5)
        defer { withExtendedLifetime(stack) {} }
        var batches = 0
        #expect(throws: Stop.self) {
            try reader.performAndWait {
                try reader.enumerateObjectValues(FetchRequest<Entry>(), batchSize: 2) { _ in
                    batches += 1
                    throw Stop()
                }
            }
        }
        #expect(batches == 1)
        var rows = 0
        try reader.performAndWait {
            try reader.enumerateObjectValues(FetchRequest<Entry>(), batchSize: 2) { rows += $0.count }
        }
        #expect(rows == 5)
    }
}
