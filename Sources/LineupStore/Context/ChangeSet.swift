/// The unsaved changes of a context, by object: a short list of immutable segments, newest first.
///
/// A segment is the batch of changes of one save (or of one merge row by row), kept as it
/// arrived. Accepting a child's save of new rows therefore prepends the child's segments instead
/// of copying its rows one by one into a growing dictionary, and publishing a snapshot for
/// descendants copies an array of a few references instead of every row. Moving changes up the
/// stack moves the segments: only the writer's save looks at every row, to write it.
///
/// An object ID is in at most one segment: a change that meets an earlier change of the same row
/// is merged with it row by row and the earlier one is removed (see
/// `ManagedObjectContext.accept`). Readers still take the newest segment's change of an ID first,
/// which is also the right answer should a row ever appear twice.
package struct ChangeSet: Sendable, Sequence {
    /// Past this many segments, the smallest neighbours are merged, so that a look-up by ID stays
    /// cheap however many saves pile up between two flushes.
    static let segmentLimit = 32

    /// Newest first; never holds an empty segment.
    private(set) var segments: [ChangeSegment] = []

    init() {}

    init(_ segments: [ChangeSegment]) {
        self.segments = segments.filter { !$0.isEmpty }
    }

    var isEmpty: Bool { segments.isEmpty }

    /// The number of changes.
    var count: Int {
        var total = 0
        for segment in segments { total += segment.count }
        return total
    }

    /// True when every change is an insert: no version to check anywhere.
    var insertsOnly: Bool { segments.allSatisfy(\.insertsOnly) }

    /// True when some change is of an entity with uniqueness constraints.
    var hasUniquenessConstraints: Bool { segments.contains { $0.hasUniquenessConstraints } }

    /// The change of `id`, the newest segment first.
    subscript(id: ObjectID) -> RowChange? {
        for segment in segments {
            if let change = segment[id] { return change }
        }
        return nil
    }

    /// Whether the change of `id` in `segments[position]` is its newest (no newer segment has one).
    func isNewest(_ id: ObjectID, at position: Int) -> Bool {
        !segments[..<position].contains { $0[id] != nil }
    }

    /// Adds `segment` as the newest.
    mutating func prepend(_ segment: ChangeSegment) {
        guard !segment.isEmpty else { return }
        segments.insert(segment, at: 0)
    }

    /// Adds the segments of `other`, which are newer than this set's.
    mutating func prepend(contentsOf other: ChangeSet) {
        segments.insert(contentsOf: other.segments, at: 0)
    }

    /// Removes the change of `id` and returns it. Copies the segment that held it when a published
    /// snapshot shares it (the snapshot keeps its own, unchanged).
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> RowChange? {
        var removed: RowChange?
        var index = 0
        while index < segments.count {
            // Probe before mutating: mutating a shared segment copies it.
            if segments[index][id] != nil {
                let change = segments[index].removeValue(forKey: id)
                if removed == nil { removed = change }
                if segments[index].isEmpty {
                    segments.remove(at: index)
                    continue
                }
            }
            index += 1
        }
        return removed
    }

    /// Merges neighbouring segments, the pair with the fewest changes first, until there are at
    /// most `limit`. Each merge copies only the two segments it merges.
    mutating func compact(toAtMost limit: Int = ChangeSet.segmentLimit) {
        while segments.count > Swift.max(1, limit) {
            var pair = 0
            for index in 1..<(segments.count - 1)
            where segments[index].count + segments[index + 1].count < segments[pair].count + segments[pair + 1].count {
                pair = index
            }
            segments[pair] = ChangeSegment(newer: segments[pair], older: segments[pair + 1])
            segments.remove(at: pair + 1)
        }
    }

    /// Every change, the newest segment's first.
    package func makeIterator() -> Iterator {
        Iterator(segments: segments.makeIterator())
    }

    package struct Iterator: IteratorProtocol {
        var segments: IndexingIterator<[ChangeSegment]>
        var rows: IndexingIterator<[ChangeSegment.Row]>?

        package mutating func next() -> (ObjectID, RowChange)? {
            while true {
                if let row = rows?.next() { return (row.id, row.change) }
                guard let segment = segments.next() else { return nil }
                rows = segment.rows.makeIterator()
            }
        }
    }
}

/// One batch of changes of a ``ChangeSet``, sorted by primary key, with what the receiving
/// context needs to know about it without looking at every row.
///
/// Sorted rather than hashed: a look-up by ID is a binary search, building a segment from a
/// context's objects is a sort instead of a hash insert per row, and the writer writes a segment
/// in key order (appending to the table's B-tree) without sorting or copying it.
package struct ChangeSegment: Sendable {
    /// A struct rather than a tuple: tuples are copied through the run time's generic value
    /// witnesses, a struct by specialized code.
    package struct Row: Sendable {
        package let id: ObjectID
        package var change: RowChange
    }

    /// In increasing primary-key order, one row per key.
    package private(set) var rows: [Row]
    /// True when every change is an insert (left true or false when a row is removed: it only
    /// decides whether rows are looked at one by one).
    private(set) var insertsOnly: Bool
    /// True when a change is of an entity with uniqueness constraints.
    private(set) var hasUniquenessConstraints: Bool
    /// The rows by uniqueness key, when `hasUniquenessConstraints` (see ``UniqueKeyIndex``). Built
    /// once with the segment, which is immutable but for the removal of rows.
    private(set) var uniqueKeys: UniqueKeyIndex?
    /// True once a context accepted the segment: its keys were checked against the context's view
    /// (see ``UniquenessCheck``), so that no two checked segments of one context's changes give
    /// the same key to rows both visible. A segment made of a context's own objects is not.
    private(set) var keysChecked = false

    init() {
        rows = []
        insertsOnly = true
        hasUniquenessConstraints = false
    }

    /// Rows already sorted, with their flags (see ``Builder``).
    private init(sortedRows rows: [Row], insertsOnly: Bool, hasUniquenessConstraints: Bool) {
        self.rows = rows
        self.insertsOnly = insertsOnly
        self.hasUniquenessConstraints = hasUniquenessConstraints
        self.uniqueKeys = hasUniquenessConstraints ? UniqueKeyIndex(rows) : nil
    }

    /// The two segments as one; `newer` wins for a key that both hold.
    init(newer: ChangeSegment, older: ChangeSegment) {
        var merged: [Row] = []
        merged.reserveCapacity(newer.count + older.count)
        var new = 0
        var old = 0
        while new < newer.rows.count || old < older.rows.count {
            if old == older.rows.count {
                merged.append(newer.rows[new])
                new += 1
            } else if new == newer.rows.count {
                merged.append(older.rows[old])
                old += 1
            } else {
                let newKey = newer.rows[new].id.primaryKey
                let oldKey = older.rows[old].id.primaryKey
                if newKey <= oldKey {
                    merged.append(newer.rows[new])
                    new += 1
                    if newKey == oldKey { old += 1 }
                } else {
                    merged.append(older.rows[old])
                    old += 1
                }
            }
        }
        self.init(
            sortedRows: merged, insertsOnly: newer.insertsOnly && older.insertsOnly,
            hasUniquenessConstraints: newer.hasUniquenessConstraints || older.hasUniquenessConstraints)
        keysChecked = newer.keysChecked && older.keysChecked
    }

    /// Marks the segment as accepted by a context whose uniqueness check it passed.
    mutating func markKeysChecked() {
        keysChecked = true
    }

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }
    var firstKey: Int64? { rows.first?.id.primaryKey }
    var lastKey: Int64? { rows.last?.id.primaryKey }

    subscript(id: ObjectID) -> RowChange? {
        index(of: id).map { rows[$0].change }
    }

    /// The position of `id`'s row.
    func index(of id: ObjectID) -> Int? {
        guard let index = index(ofPrimaryKey: id.primaryKey), rows[index].id == id else { return nil }
        return index
    }

    /// The position of the row with primary key `key`: a binary search.
    func index(ofPrimaryKey key: Int64) -> Int? {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].id.primaryKey < key {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < rows.count, rows[low].id.primaryKey == key else { return nil }
        return low
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> RowChange? {
        guard let index = index(of: id) else { return nil }
        return rows.remove(at: index).change
    }

    /// Collects rows in any order and makes a segment of them: sorted only if they did not come
    /// in key order already.
    struct Builder {
        private var rows: [Row] = []
        private var sorted = true
        private var insertsOnly = true
        private var hasUniquenessConstraints = false

        init(capacity: Int = 0) {
            rows.reserveCapacity(capacity)
        }

        var isEmpty: Bool { rows.isEmpty }
        var count: Int { rows.count }

        mutating func append(_ change: RowChange, for id: ObjectID) {
            if let last = rows.last, last.id.primaryKey >= id.primaryKey { sorted = false }
            if change.kind != .insert { insertsOnly = false }
            if change.entity.hasUniquenessConstraints { hasUniquenessConstraints = true }
            rows.append(Row(id: id, change: change))
        }

        /// The segment; of two rows with the same key, the one appended last. Leaves the builder
        /// empty.
        mutating func build() -> ChangeSegment {
            var rows: [Row] = []
            swap(&rows, &self.rows)
            if !sorted {
                // Sort positions, not rows: a row is a dozen words. Equal keys keep the order they
                // were appended in, and the last of them wins.
                var order = rows.indices.map { (key: rows[$0].id.primaryKey, position: $0) }
                order.sort { $0.key != $1.key ? $0.key < $1.key : $0.position < $1.position }
                var sortedRows: [Row] = []
                sortedRows.reserveCapacity(rows.count)
                for (index, entry) in order.enumerated()
                where index + 1 == order.count || order[index + 1].key != entry.key {
                    sortedRows.append(rows[entry.position])
                }
                rows = sortedRows
            }
            return ChangeSegment(
                sortedRows: rows, insertsOnly: insertsOnly, hasUniquenessConstraints: hasUniquenessConstraints)
        }
    }
}
