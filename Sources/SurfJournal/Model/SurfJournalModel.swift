public import LineupStore

/// The surf journal's entities.
public enum SurfJournalModel: Sendable {
    public static let model = ManagedObjectModel(JournalEntry.self, BuoyStation.self, BuoyObservation.self, FeedValidators.self)
}
