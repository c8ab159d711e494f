/// What deleting an object does to the objects its relationship reaches, as Core Data's
/// `NSDeleteRule`. Applied when the delete is saved (see ``ManagedObjectContext/save()``).
public enum DeleteRule: Sendable, Hashable {
    /// Nothing: a destination keeps referring to the deleted object (a dangling key; for a
    /// many-to-many, the deleted object's pairs stay).
    case noAction
    /// The destinations stop referring to the deleted object (their to-one inverse becomes nil;
    /// for a many-to-many, the deleted object's pairs are deleted).
    case nullify
    /// The destinations are deleted too, and their own rules apply.
    case cascade
    /// The save fails, naming the objects, while the relationship reaches any object that is not
    /// deleted as well.
    case deny
}
