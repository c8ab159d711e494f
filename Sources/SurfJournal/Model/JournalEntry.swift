public import Foundation
public import LineupStore

/// One surf session, with the shape of the SurfJournal app's Core Data entity: the height,
/// period and wind are the strings the surfer typed (e.g. "3.9"), the rating is 1–5.
public final class JournalEntry: ManagedObject {
    @Attribute("date") public var date: Date?
    @Attribute("height") public var height: String?
    @Attribute("period") public var period: String?
    @Attribute("wind") public var wind: String?
    @Attribute("location") public var location: String?
    @Attribute("rating") public var rating: Int?

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
