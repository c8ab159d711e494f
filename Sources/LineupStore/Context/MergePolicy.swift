/// How a save resolves a conflict: the saved object changed a row whose version in the parent is
/// newer than the one the object was loaded from (someone else saved it in between), or the row
/// is gone; or it claims the values of a uniqueness constraint that another row holds.
///
/// As in Core Data, the policy of the context that saves decides; a child context uses its
/// parent's policy unless it has its own. At the flush, the writer's own policy settles what the
/// store's unique indexes refuse (a row another writer of the database stored meanwhile).
///
/// A uniqueness conflict is settled as Core Data's `resolve(constraintConflicts:)` settles it
/// (see <doc:Events>): an inserted object that claims a key is merged into the row that holds it,
/// which keeps its identity, and the saved rows that point at the inserted object point at that
/// row instead. `.mergeByPropertyObjectTrump` gives the row the inserted object's set values,
/// `.overwrite` all of its values, and `.mergeByPropertyStoreTrump` and `.rollback` leave the row
/// as it is; the inserted object is gone from the saving context. A changed object that claims a
/// key keeps its row and loses the change. Only `.error` throws.
public enum MergePolicy: Sendable, Hashable {
    /// The save throws a ``StoreError`` whose `conflicts` list the objects. Nothing is saved.
    case error
    /// Property by property: where both sides changed a property, the parent's (store's) value
    /// wins; the object's other changes are kept.
    case mergeByPropertyStoreTrump
    /// Property by property: the object's changed properties win; properties it did not change take
    /// the parent's newer values.
    case mergeByPropertyObjectTrump
    /// The object's whole state replaces the row.
    case overwrite
    /// The object's changes to conflicting rows are discarded; the parent's state wins.
    case rollback
}

/// One conflict found by a save.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// What made the save a conflict.
    public enum Reason: Sendable, Hashable {
        /// The row's version in the parent is not the one the object was loaded from.
        case newerVersion(expected: Int64, found: Int64)
        /// The row no longer exists in the parent.
        case rowDeleted
        /// Another row already has these values for a uniqueness constraint.
        case uniqueness(properties: [String], existing: ObjectID)
    }

    /// The object the save could not store as it was.
    public let objectID: ObjectID
    /// Why: a newer version, a deleted row, or a taken unique key.
    public let reason: Reason
    /// The properties the saving object changed.
    public let changedProperties: [String]

    /// One line naming the object and the conflict, with the properties it changed (or, for a
    /// uniqueness conflict, the key and the object that holds it).
    public var description: String {
        switch reason {
        case let .newerVersion(expected, found):
            return "\(objectID): saved version \(found) is newer than \(expected) (changed: \(changedProperties.joined(separator: ", ")))"
        case .rowDeleted:
            return "\(objectID): the row was deleted (changed: \(changedProperties.joined(separator: ", ")))"
        case let .uniqueness(properties, existing):
            return "\(objectID): \(properties.joined(separator: "+")) already used by \(existing)"
        }
    }
}

extension MergePolicy {
    /// Resolves a version conflict on an update or delete. `current` is the parent's row, nil when it
    /// is gone. Returns the change to apply, or nil to drop the pushed change.
    func resolve(_ change: RowChange, current: RowSnapshot?) -> RowChange? {
        guard let current else {
            // The row is gone: only the policies that let the object win keep a delete; an update
            // of a deleted row has nothing to update.
            switch self {
            case .error, .rollback, .mergeByPropertyStoreTrump: return nil
            case .overwrite, .mergeByPropertyObjectTrump: return change.kind == .delete ? change : nil
            }
        }
        var resolved = change
        resolved.baseStamp = current.stamp
        switch self {
        case .error:
            preconditionFailure("conflicts under .error are thrown, not resolved")
        case .rollback:
            return nil
        case .overwrite:
            return resolved
        case .mergeByPropertyObjectTrump:
            guard change.kind == .update else { return resolved }
            var values = current.values
            for index in change.changedMask.indexes { values[index] = change.values[index] }
            resolved.values = values
            return resolved
        case .mergeByPropertyStoreTrump:
            guard change.kind == .update else { return nil }
            var values = current.values
            let base = change.baseValues ?? current.values
            for index in change.changedMask.indexes where current.values[index] == base[index] {
                values[index] = change.values[index]
            }
            resolved.values = values
            return resolved
        }
    }
}
