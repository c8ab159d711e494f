public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool

/// `import-coredata`: imports the journal of a Core Data SurfJournal store (its `.sqlite` with
/// the `-wal` and `-shm` beside it), dates converted from seconds since 2001-01-01.
///
/// The store is read where it is, read-only, with its WAL (a SurfJournal seed store keeps every
/// row in the WAL). Entries are upserted by (date, location), so a re-run adds nothing twice.
public final class ImportCoreDataTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        public let input: String
    }

    public static let kind = "import-coredata"
    static let batchSize = 1_000

    public let input: URL

    public init(request: JobRequest, parameters: Parameters) throws {
        self.input = try request.resolveInput(parameters.input)
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let reader: CoreDataStoreReader
        do {
            reader = try CoreDataStoreReader(url: input)
        } catch {
            throw JobError(.jobFailed, "\(error)", isRetryable: false, underlying: error)
        }
        defer { try? reader.close() }
        guard let entity = reader.entity(named: "JournalEntry") else {
            throw JobError(.jobFailed, "\(input.path) has no JournalEntry entity", isRetryable: false)
        }
        let total = Int64(entity.rowCount)
        reportProgress(completed: 0, total: total)
        var inserted = 0
        var unchanged = 0
        var done: Int64 = 0
        try reader.forEachRow(ofEntity: "JournalEntry", batchSize: Self.batchSize) { rows in
            try checkCancellation()
            let dates = try rows.compactMap { try $0.date("date") }
            var existing: [String: JournalEntry] = [:]
            for entry in try context.fetch(FetchRequest<JournalEntry>(predicate: .isIn(\.date, dates.map { Optional($0) }))) {
                existing[Self.key(entry.date, entry.location)] = entry
            }
            for row in rows {
                let date = try row.date("date")
                let location = try row.string("location")
                let key = Self.key(date, location)
                let entry: JournalEntry
                if let found = existing[key] {
                    entry = found
                } else {
                    entry = JournalEntry(context: context)
                    existing[key] = entry
                }
                entry.date = date
                entry.location = location
                entry.height = try row.string("height")
                entry.period = try row.string("period")
                entry.wind = try row.string("wind")
                entry.rating = try row.int("rating")
                if entry.isInserted { inserted += 1 } else if !entry.hasChanges { unchanged += 1 }
            }
            try context.save()
            context.reset()
            done += Int64(rows.count)
            reportProgress(completed: done, total: total)
        }
        return JobOutcome(
            summary: "imported \(inserted) journal entries from \(input.lastPathComponent) (\(unchanged) already there)",
            counts: ["entries": Int(done), "inserted": inserted, "unchanged": unchanged])
    }

    private static func key(_ date: Date?, _ location: String?) -> String {
        "\(date?.timeIntervalSince1970 ?? .nan)|\(location ?? "")"
    }
}
