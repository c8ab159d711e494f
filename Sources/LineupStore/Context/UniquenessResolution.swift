/// Settles the uniqueness conflicts of a save, each by the merge policy that the context which
/// made the claimant's change set (``RowChange/mergePolicy``), else by the saver's, as Core Data's
/// `NSMergePolicy.resolve(constraintConflicts:)` does, wherever a save is checked: a context
/// accepting a child's save, and the writer's transaction that the store's unique indexes refuse.
///
/// A conflict is an incoming row (the claimant) whose key another row (the holder) already has:
/// - An inserted claimant is merged into the holder, which keeps its identity. Under
///   `.mergeByPropertyObjectTrump` the holder takes the claimant's set values (those that are not
///   a new object's defaults); under `.overwrite`, all of them; under `.mergeByPropertyStoreTrump`
///   and `.rollback` it keeps its own. The claimant's row is dropped (its object becomes
///   inaccessible in the saving context), and the incoming rows that point at it point at the
///   holder instead, so that an import's observations follow its station into the existing one.
/// - An updated claimant (an existing row given a key that another row holds) cannot become the
///   holder without one of the two rows being lost: under every policy but `.error` its change
///   is dropped, and it keeps the row it had.
/// - A claimant under `.error`: nothing is settled, the save throws the conflicts.
///
/// Nothing is done, and nothing is copied, when there is no conflict: the common save pays for
/// the check alone, as before.
struct UniquenessResolution {
    /// The changes to apply: the incoming ones, settled, with the holders' updates.
    private(set) var changes: ChangeSet
    /// What the saving context must take for the rows it pushed that were not stored as pushed.
    private(set) var exceptions: [ObjectID: AcceptedChange] = [:]
    /// Whether there was anything to settle (else `changes` are the incoming ones, untouched).
    private(set) var settledAny = false
    /// The inserts dropped, by primary key, and the rows each was merged into.
    private(set) var mergedInto: [Int64: ObjectID] = [:]

    /// - Parameters:
    ///   - currentRow: the row of an ID as the level that checks sees it, without the incoming
    ///     changes; nil when it has none.
    init(
        _ incoming: ChangeSet, policy: MergePolicy, check: UniquenessCheck,
        currentRow: (ObjectID, EntityDescription) throws -> RowSnapshot?, nextStamp: () -> Int64
    ) throws {
        changes = incoming
        var conflicts = try check.conflicts(in: incoming)
        guard !conflicts.isEmpty else { return }
        // An ID is in one segment, but the check says the same.
        var rows = Self.newestChanges(in: incoming)
        guard !conflicts.contains(where: { (rows[$0.objectID]?.mergePolicy ?? policy) == .error }) else {
            throw Self.error(conflicts)
        }
        settledAny = true

        let pushed = Set(rows.keys)
        var changed = Set<ObjectID>()
        while !conflicts.isEmpty {
            let claimants = Set(conflicts.map(\.objectID))
            var progressed = false
            for conflict in conflicts {
                guard case let .uniqueness(_, holder) = conflict.reason else { continue }
                // A holder that claims a key of its own is settled first: the next round takes
                // the rows that wait for it.
                if claimants.contains(holder) { continue }
                // Gone already: another of its constraints settled it.
                guard let claim = rows[conflict.objectID] else { continue }
                progressed = true
                switch claim.kind {
                case .insert:
                    let current: RowSnapshot?
                    if let incomingHolder = rows[holder] {
                        current = RowSnapshot(values: incomingHolder.values, stamp: incomingHolder.stamp)
                    } else {
                        current = try currentRow(holder, claim.entity)
                    }
                    guard let current else { throw Self.error(conflicts) }
                    if let update = Self.merge(claim, into: rows[holder], current: current, policy: claim.mergePolicy ?? policy) {
                        rows[holder] = update
                        changed.insert(holder)
                    }
                    rows[conflict.objectID] = nil
                    mergedInto[conflict.objectID.primaryKey] = holder
                    exceptions[conflict.objectID] = .removed
                case .update:
                    rows[conflict.objectID] = nil
                    exceptions[conflict.objectID] = try currentRow(conflict.objectID, claim.entity).map { .stored($0) } ?? .removed
                case .delete:
                    break
                }
            }
            guard progressed else { throw Self.error(conflicts) }
            if !mergedInto.isEmpty {
                for (id, change) in rows {
                    if let redirected = Self.redirecting(change, mergedInto) {
                        rows[id] = redirected
                        changed.insert(id)
                    }
                }
            }
            // Redirected rows may now claim a key (an observation of the merged station), and a
            // holder's new values another constraint's: checked again, until nothing is left.
            changes = ChangeSet([Self.segment(rows)])
            conflicts = try check.conflicts(in: changes)
        }
        // The rows whose values the settling changed get a version of their own.
        for id in changed {
            guard var change = rows[id] else { continue }
            change.stamp = nextStamp()
            rows[id] = change
            if pushed.contains(id) { exceptions[id] = .stored(RowSnapshot(values: change.values, stamp: change.stamp)) }
        }
        changes = ChangeSet([Self.segment(rows)])
        // A holder's update that another constraint dropped was never the saver's row.
        exceptions = exceptions.filter { pushed.contains($0.key) }
    }

    private static func error(_ conflicts: [MergeConflict]) -> StoreError {
        StoreError(.mergeConflict, "uniqueness constraint violated", conflicts: conflicts)
    }

    private static func segment(_ rows: [ObjectID: RowChange]) -> ChangeSegment {
        var builder = ChangeSegment.Builder(capacity: rows.count)
        for (id, change) in rows { builder.append(change, for: id) }
        return builder.build()
    }

    /// The holder's change once `claim`, an insert with its key, is merged into it by `policy`;
    /// nil when the holder keeps its row. `incoming` is the holder's own incoming change, if any.
    private static func merge(
        _ claim: RowChange, into incoming: RowChange?, current: RowSnapshot, policy: MergePolicy
    ) -> RowChange? {
        let entity = claim.entity
        var values = current.values
        var mask = PropertyMask.empty
        switch policy {
        case .mergeByPropertyObjectTrump:
            // An insert has no base: what it set is what differs from a new object's values.
            for index in values.indices where claim.values[index] != entity.defaultValues[index] && claim.values[index] != values[index] {
                values[index] = claim.values[index]
                mask.insert(index)
            }
        case .overwrite:
            for index in values.indices where claim.values[index] != values[index] {
                values[index] = claim.values[index]
                mask.insert(index)
            }
        case .mergeByPropertyStoreTrump, .rollback, .error:
            return nil
        }
        guard !mask.isEmpty else { return nil }
        if var change = incoming {
            change.values = values
            if change.kind == .update { change.changedMask = change.changedMask.union(mask) }
            return change
        }
        return RowChange(
            kind: .update, mergePolicy: claim.mergePolicy, entity: entity, values: values, changedMask: mask,
            baseValues: current.values, baseStamp: current.stamp, stamp: current.stamp)
    }

    /// `changes` with their to-one keys that point at merged inserts pointing at the rows they were
    /// merged into (`mergedInto`, by the inserts' primary keys); nil when none points at one.
    /// Every write of the writer asks, once it has merged an insert: a look at each row's to-one
    /// keys, and nothing is copied unless one points at a merged insert.
    static func redirecting(_ changes: ChangeSet, to mergedInto: [Int64: ObjectID]) -> ChangeSet? {
        guard changes.contains(where: { redirecting($0.1, mergedInto) != nil }) else { return nil }
        var rows = newestChanges(in: changes)
        for (id, change) in rows {
            if let redirected = redirecting(change, mergedInto) { rows[id] = redirected }
        }
        return ChangeSet([segment(rows)])
    }

    /// The newest change of each ID of `changes`, whose segments come newest first.
    private static func newestChanges(in changes: ChangeSet) -> [ObjectID: RowChange] {
        var rows: [ObjectID: RowChange] = [:]
        for (id, change) in changes where rows[id] == nil { rows[id] = change }
        return rows
    }

    /// `change` with its to-one keys that point at merged inserts pointing at the rows they were
    /// merged into; nil when it points at none.
    private static func redirecting(_ change: RowChange, _ mergedInto: [Int64: ObjectID]) -> RowChange? {
        guard change.kind != .delete else { return nil }
        var redirected: RowChange?
        for relationship in change.entity.relationships where relationship.kind == .toOne {
            let index = change.entity.propertyIndex(relationship.name)
            guard case var .integer(key) = change.values[index], mergedInto[key] != nil else { continue }
            // A chain (an insert merged into another that was merged in turn) ends at a row kept.
            while let next = mergedInto[key] { key = next.primaryKey }
            if redirected == nil { redirected = change }
            redirected?.values[index] = .integer(key)
            if redirected?.kind == .update { redirected?.changedMask.insert(index) }
        }
        return redirected
    }
}
