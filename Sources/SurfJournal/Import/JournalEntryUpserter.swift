import Foundation
import LineupStore

/// Writes the journal entries of one Core Data store into a context, upserting by their natural
/// key, the store's `Z_UUID` and the entry's `Z_PK` (see ``JournalEntry``): an entry already
/// imported from that store is updated in place, so running it twice over the same rows changes
/// nothing the second time.
///
/// Entries imported before the key existed have no source. An entry that the key does not find
/// adopts one of them that has its old key, (date, location), a nil matching a nil, as the
/// import then matched it; adopting gives the entry its source, so it happens once. Entries that
/// were already duplicated under the old key (those without a date were inserted on every run)
/// are adopted one per imported entry; the rest are left alone.
///
/// Use it on the context's queue. It neither saves nor resets the context.
struct JournalEntryUpserter {
    struct Counts {
        var inserted = 0
        var updated = 0
        var unchanged = 0
        /// Entries without a source that took this store's entries' keys.
        var adopted = 0
    }

    /// The old key of an entry, before it had a source. Dates are compared as the store compares
    /// them: seconds since 1970, exactly.
    private struct LegacyKey: Hashable {
        let secondsSince1970: Double?
        let location: String?

        init(_ date: Date?, _ location: String?) {
            secondsSince1970 = date?.timeIntervalSince1970
            self.location = location
        }
    }

    private let context: ManagedObjectContext
    private let sourceStoreUUID: String
    private(set) var counts = Counts()

    /// - Parameter sourceStoreUUID: The `Z_UUID` of the store the rows come from.
    init(context: ManagedObjectContext, sourceStoreUUID: String) {
        self.context = context
        self.sourceStoreUUID = sourceStoreUUID
    }

    /// Upserts `rows`, rows of the store's `JournalEntry` entity.
    mutating func upsert(_ rows: [CoreDataRow]) throws {
        var imported: [Int: JournalEntry] = [:]
        let sourceKeys = rows.map { Optional(Int($0.primaryKey)) }
        let request = FetchRequest<JournalEntry>(
            predicate: \.sourceStoreUUID == sourceStoreUUID && .isIn(\.sourcePrimaryKey, sourceKeys))
        for entry in try context.fetch(request) {
            if let key = entry.sourcePrimaryKey { imported[key] = entry }
        }
        let new = rows.filter { imported[Int($0.primaryKey)] == nil }
        var legacy = try legacyEntries(matching: new)
        for row in rows {
            let date = try row.date("date")
            let location = try row.string("location")
            let entry: JournalEntry
            var adopted = false
            if let found = imported[Int(row.primaryKey)] {
                entry = found
            } else if var candidates = legacy[LegacyKey(date, location)], !candidates.isEmpty {
                entry = candidates.removeFirst()
                legacy[LegacyKey(date, location)] = candidates
                adopted = true
            } else {
                entry = JournalEntry(context: context)
            }
            entry.sourceStoreUUID = sourceStoreUUID
            entry.sourcePrimaryKey = Int(row.primaryKey)
            entry.date = date
            entry.location = location
            entry.height = try row.string("height")
            entry.period = try row.string("period")
            entry.wind = try row.string("wind")
            entry.rating = try row.int("rating")
            if entry.isInserted {
                counts.inserted += 1
            } else if adopted {
                counts.adopted += 1
            } else if entry.hasChanges {
                counts.updated += 1
            } else {
                counts.unchanged += 1
            }
        }
    }

    /// The entries without a source that hold the old key of one of `rows`, oldest first.
    private func legacyEntries(matching rows: [CoreDataRow]) throws -> [LegacyKey: [JournalEntry]] {
        guard !rows.isEmpty else { return [:] }
        let dates = try rows.map { try $0.date("date") }
        var dated: FetchPredicate<JournalEntry> = .isIn(\.date, dates.filter { $0 != nil })
        if dates.contains(where: { $0 == nil }) {
            dated = dated || \.date == nil
        }
        let request = FetchRequest<JournalEntry>(predicate: \.sourceStoreUUID == nil && dated)
        var result: [LegacyKey: [JournalEntry]] = [:]
        for entry in try context.fetch(request).sorted(by: { $0.objectID.primaryKey < $1.objectID.primaryKey }) {
            result[LegacyKey(entry.date, entry.location), default: []].append(entry)
        }
        return result
    }
}
