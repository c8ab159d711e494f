import Foundation
import LineupStore

/// The benchmark's entity: the shape of SurfJournal's `JournalEntry` (DESIGN §4), declared here
/// so that the stack benchmark depends on LineupStore alone.
final class BenchEntry: ManagedObject {
    @Attribute("date") var date: Date?
    @Attribute("height") var height: String?
    @Attribute("period") var period: String?
    @Attribute("wind") var wind: String?
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int?
}
