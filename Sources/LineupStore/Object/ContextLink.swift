/// What a managed object holds of its context: one weak reference, shared by all of the
/// context's objects, instead of a weak reference in each object.
///
/// A weak reference of an object's own costs at every insert a registration in the context's
/// side table (an atomic increment of its weak count), and at every deallocation its removal: a
/// bulk import makes and drops hundreds of thousands of objects. A strong reference to the shared
/// link costs a plain retain and release, and the link tells, as the weak reference did, whether
/// the context is gone.
final class ContextLink {
    /// Set once, by the context at the end of its initializer; nil once the context is gone.
    weak var context: ManagedObjectContext?
}
