/// A save is about to run: Core Data's `NSManagedObjectContextWillSave`. Posted on the saving
/// context's queue at the start of ``ManagedObjectContext/save()`` when there is something to
/// save, before validation: an observer may still change objects, and what it changes is saved.
public struct ContextWillSave: Sendable {
    /// The name of the context that saves.
    public let contextName: String
}
