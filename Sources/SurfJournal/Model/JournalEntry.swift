public import Foundation
public import LineupStore

/// One surf session, with the shape of the SurfJournal app's Core Data entity: the height,
/// period and wind are the strings the surfer typed (e.g. "3.9"), the rating is 1–5.
///
/// ## Natural key
///
/// An entry imported from a Core Data store is unique on where it came from:
/// (``sourceStoreUUID``, ``sourcePrimaryKey``), the store's `Z_UUID` in `Z_METADATA` and the
/// entry's `Z_PK` there. `import-coredata` upserts on that key, and the stack enforces it (a
/// unique index on disk, and the uniqueness check when a context accepts a child's save), so a
/// re-run, or two imports of one store at the same time, leave each entry once.
///
/// Why not the domain key (date, location), which the import used before:
/// - Neither is required, and a key with a NULL in it is no key: SQL's unique index, like the
///   contexts' check, treats NULLs as distinct, so an entry without a date (or a location) was
///   inserted again on every run. The source key is never NULL for an imported entry.
/// - A surfer edits entries in the app: a changed date or location is a new (date, location),
///   and a re-import would add the edited entry beside the old one instead of updating it.
/// - Two sessions at one spot with the same date are possible, and would be folded into one.
///
/// `Z_UUID` is set when Core Data creates the store and stays for its life; `Z_PK` comes from
/// `Z_PRIMARYKEY.Z_MAX`, which only grows, so a deleted entry's key is never given to another.
/// The cost: a different store holding the same sessions (a copy that Core Data re-created,
/// another device) is another source, and its entries are imported beside the first's.
///
/// Entries made in Lineup itself have no source (both nil) and no key: they are never merged.
/// Entries imported before the key existed have no source either; the import adopts them by
/// their old key, (date, location), the first time it meets them (see `ImportCoreDataTask`).
public final class JournalEntry: ManagedObject {
    @Attribute("date") public var date: Date?
    @Attribute("height") public var height: String?
    @Attribute("period") public var period: String?
    @Attribute("wind") public var wind: String?
    @Attribute("location") public var location: String?
    @Attribute("rating") public var rating: Int?
    /// The `Z_UUID` of the Core Data store the entry was imported from; nil for an entry made in
    /// Lineup.
    @Attribute("sourceStoreUUID") public var sourceStoreUUID: String?
    /// The entry's `Z_PK` in that store.
    @Attribute("sourcePrimaryKey") public var sourcePrimaryKey: Int?

    public override class var uniquenessConstraints: [[String]] { [["sourceStoreUUID", "sourcePrimaryKey"]] }
    public override class var indexes: [[String]] { [["date"], ["location"]] }

    public struct RatingOutOfRange: Error, CustomStringConvertible {
        public let rating: Int
        public var description: String { "rating \(rating) is outside 1...5" }
    }

    public override func validateForSave() throws {
        // 0 means "not rated" in the SurfJournal app's seed data.
        if let rating, !(0...5).contains(rating) { throw RatingOutOfRange(rating: rating) }
    }
}
