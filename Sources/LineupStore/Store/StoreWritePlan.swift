/// A change set as a store writes it, the same for every store: the rows whose stored versions
/// must be checked, the conflicts settled by the merge policy, then the writes in their order
/// (deletes, then updates, then inserts: a key freed by one row can be taken by another).
package struct StoreWritePlan {
    /// Segments of inserts, which have no version to check: they go to the table as they are.
    private let insertSegments: [ChangeSegment]
    /// The other changes, checked row by row; after `resolve`, what is left to write of them.
    private var checked: ChangeSegment
    /// The rows that the merge policy changed or removed (see ``AcceptedChange``).
    package private(set) var exceptions: [ObjectID: AcceptedChange] = [:]

    package init(_ changes: ChangeSet) {
        var inserts: [ChangeSegment] = []
        var others = ChangeSegment.Builder()
        for segment in changes.segments.reversed() {
            if segment.insertsOnly {
                inserts.insert(segment, at: 0)
            } else {
                for row in segment.rows { others.append(row.change, for: row.id) }
            }
        }
        insertSegments = inserts
        checked = others.build()
    }

    /// The updated and deleted rows, by entity, whose stored versions `resolve` needs.
    package var rowsToCheck: [EntityDescription: [ObjectID]] {
        var byEntity: [EntityDescription: [ObjectID]] = [:]
        for row in checked.rows where row.change.kind != .insert {
            byEntity[row.change.entity, default: []].append(row.id)
        }
        return byEntity
    }

    /// Settles the conflicts between the changes and `current`, the stored rows of `rowsToCheck`
    /// (a missing one was deleted), each by the policy that the context which made it set, else
    /// by `policy`, the writer's.
    package mutating func resolve(current: [ObjectID: RowSnapshot], policy: MergePolicy, nextStamp: () -> Int64) throws {
        guard !checked.insertsOnly else { return }
        let resolution = try ConflictResolution(checked, current: current, policy: policy, nextStamp: nextStamp)
        checked = resolution.toApply
        exceptions = resolution.exceptions
    }

    package var deletes: [ChangeSegment.Row] { checked.rows.filter { $0.change.kind == .delete } }
    package var updates: [ChangeSegment.Row] { checked.rows.filter { $0.change.kind == .update } }

    /// Every insert, as segments whose keys do not overlap, lowest first, so that inserts append
    /// to the table's B-tree.
    package var insertsInKeyOrder: [ChangeSegment] {
        var segments = insertSegments
        if !checked.insertsOnly {
            var builder = ChangeSegment.Builder()
            for row in checked.rows where row.change.kind == .insert { builder.append(row.change, for: row.id) }
            segments.append(builder.build())
        } else {
            segments.append(checked)
        }
        return Self.inKeyOrder(segments)
    }

    /// Segments of inserts (newest first), as segments whose keys do not overlap, lowest first.
    /// Segments of different saves hold different keys, so this usually only orders them; the
    /// segments of a cluster whose key ranges overlap (jobs whose blocks of keys interleave) are
    /// merged into one, the newest change of a key winning.
    private static func inKeyOrder(_ segments: [ChangeSegment]) -> [ChangeSegment] {
        let ordered = segments.enumerated().filter { !$0.element.isEmpty }
            .sorted { $0.element.firstKey! < $1.element.firstKey! }
        var clusters: [[(age: Int, segment: ChangeSegment)]] = []
        var clusterEnd = Int64.min
        for (age, segment) in ordered {
            if !clusters.isEmpty && segment.firstKey! <= clusterEnd {
                clusters[clusters.count - 1].append((age, segment))
            } else {
                clusters.append([(age, segment)])
            }
            clusterEnd = max(clusterEnd, segment.lastKey!)
        }
        return clusters.map { cluster in
            guard cluster.count > 1 else { return cluster[0].segment }
            var builder = ChangeSegment.Builder(capacity: cluster.reduce(0) { $0 + $1.segment.count })
            // Oldest first: the builder keeps the last row appended for a key.
            for (_, segment) in cluster.sorted(by: { $0.age > $1.age }) {
                for row in segment.rows { builder.append(row.change, for: row.id) }
            }
            return builder.build()
        }
    }
}
