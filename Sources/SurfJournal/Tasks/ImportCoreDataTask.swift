public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool
import Logging

/// `import-coredata`: imports the journal of a Core Data SurfJournal store (its `.sqlite` with
/// the `-wal` and `-shm` beside it), dates converted from seconds since 2001-01-01.
///
/// The store is read where it is, read-only, with its WAL (a SurfJournal seed store keeps every
/// row in the WAL). Entries are upserted by their natural key, the store's `Z_UUID` and the
/// entry's `Z_PK` (see ``JournalEntry``), so a re-run adds nothing, entries without a date or a
/// location included; entries imported before that key existed are adopted by (date, location).
///
/// Two imports of one store at the same time: the job whose save comes second inserts entries
/// the other job saved meanwhile. Its context's merge policy, `.mergeByPropertyObjectTrump`,
/// settles them when the main context accepts the save, as Core Data settles constraint
/// conflicts: each such entry is merged into the one saved first, which takes this import's
/// values (the same row of the same store), so no attempt is wasted and every entry is stored
/// once. A conflict that the policy cannot settle still fails the attempt, retryably.
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
        guard let storeUUID = reader.storeUUID, !storeUUID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw JobError(
                .jobFailed,
                "\(input.path) records no store UUID (Z_UUID in Z_METADATA): its entries could not be told from another store's, so a re-run would import them again",
                isRetryable: false)
        }
        for warning in reader.warnings {
            logger.warning("the store may be incomplete", metadata: ["warning": "\(warning)"])
        }
        let total = Int64(entity.rowCount)
        reportProgress(completed: 0, total: total)
        // A row of the source store is its own word on its entry: where another import of the
        // same store saved the entry first (or changed it since this one read it), this import's
        // values win property by property, instead of failing the attempt.
        context.mergePolicy = .mergeByPropertyObjectTrump
        var upserter = JournalEntryUpserter(context: context, sourceStoreUUID: storeUUID)
        var done: Int64 = 0
        try reader.forEachRow(ofEntity: "JournalEntry", batchSize: Self.batchSize) { rows in
            try checkCancellation()
            try upserter.upsert(rows)
            try save(context)
            context.reset()
            done += Int64(rows.count)
            reportProgress(completed: done, total: total)
        }
        let counts = upserter.counts
        var summary = "imported \(counts.inserted) journal entries from \(input.lastPathComponent) (\(counts.unchanged) already there"
        if counts.updated > 0 { summary += ", \(counts.updated) updated" }
        if counts.adopted > 0 { summary += ", \(counts.adopted) imported before without their source" }
        summary += ")"
        // Never an empty journal reported as the truth: the summary says why it may be partial.
        for warning in reader.warnings { summary += "; warning: \(warning.message)" }
        return JobOutcome(
            summary: summary,
            counts: [
                "entries": Int(done), "inserted": counts.inserted, "updated": counts.updated,
                "unchanged": counts.unchanged, "adopted": counts.adopted,
            ],
            details: reader.warnings.isEmpty ? [:] : ["warnings": .array(reader.warnings.map { .string($0.description) })])
    }

    /// Saves a batch into the main context. A conflict the merge policy does not settle (there is
    /// none today: kept for a stack whose policy throws) fails the attempt, and the next one finds
    /// the other job's entries.
    private func save(_ context: ManagedObjectContext) throws {
        do {
            try context.save()
        } catch let error as StoreError where error.code == .mergeConflict {
            logger.info("journal entries saved by another job meanwhile", metadata: ["conflicts": "\(error.conflicts.count)"])
            throw JobError(
                .jobFailed,
                "\(input.lastPathComponent): \(error.conflicts.count) journal entries were saved by another job at the same time; another attempt will update them instead\(error.conflicts.first.map { " (e.g. \($0))" } ?? "")",
                isRetryable: true, underlying: error)
        }
    }
}
