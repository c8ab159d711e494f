/// The rows of one ``ChangeSegment`` by the values of their uniqueness constraints.
///
/// Finding which pending row holds a key (to refuse a duplicate when a save is accepted, or to
/// answer a fetch by natural key such as an upsert's) is then a hash look-up per segment, instead
/// of a walk over every unsaved row of the stack, which grows with everything saved since the
/// last flush.
///
/// It keeps hashes and primary keys only: building it allocates nothing per row, and a look-up
/// returns candidates that the segment confirms against the row itself. So an entry left behind
/// by a row removed from the segment is harmless: it no longer finds its row.
///
/// A class, immutable once built: a segment (a value that is copied about) holds one reference,
/// and a look-up retains nothing.
final class UniqueKeyIndex: Sendable {
    /// The values of one uniqueness constraint of an entity, hashed once for the look-ups in
    /// every segment.
    struct Key {
        unowned(unsafe) let entity: EntityDescription
        /// The constraint's number in `entity.uniquenessConstraints`.
        let constraint: Int
        /// A whole row (`isRow`), whose key a look-up reads in place instead of copying it out,
        /// or the key's values. One reference: keys are passed around in tight loops.
        private let source: [StoreValue]
        private let isRow: Bool
        fileprivate let hash: Int

        /// The key `values` (in the order of the constraint's properties). Nil when a value is
        /// NULL: NULLs are distinct, as in SQL, so such a row holds no key.
        init?(_ values: [StoreValue], constraint: Int, of entity: EntityDescription) {
            self.init(source: values, isRow: false, constraint: constraint, of: entity)
        }

        /// The key that a row of `entity` holds, or nil.
        init?(row: [StoreValue], constraint: Int, of entity: EntityDescription) {
            self.init(source: row, isRow: true, constraint: constraint, of: entity)
        }

        private init?(source: [StoreValue], isRow: Bool, constraint: Int, of entity: EntityDescription) {
            self.entity = entity
            self.constraint = constraint
            self.source = source
            self.isRow = isRow
            let positions = entity.uniqueKeyPositions[constraint]
            guard
                let hash = UniqueKeyIndex.hash(entity, constraint, count: positions.count, value: { index in
                    isRow ? source[positions[index]] : source[index]
                })
            else { return nil }
            self.hash = hash
        }

        private var count: Int { entity.uniqueKeyPositions[constraint].count }

        /// The key's value number `index`, in the order of the constraint's properties.
        private func value(_ index: Int) -> StoreValue {
            isRow ? source[entity.uniqueKeyPositions[constraint][index]] : source[index]
        }

        /// In the order of the constraint's properties.
        var values: [StoreValue] { (0..<count).map(value) }

        /// Appends the values to `list` (in the order of the constraint's properties).
        func appendValues(to list: inout [StoreValue]) {
            if isRow {
                // The positions once, not once per value: each `value(_:)` reads them anew.
                for position in entity.uniqueKeyPositions[constraint] { list.append(source[position]) }
            } else {
                list.append(contentsOf: source)
            }
        }

        /// Whether `row`, a row of `entity`, holds this key (as SQL compares values).
        func isHeld(by row: [StoreValue]) -> Bool {
            let positions = entity.uniqueKeyPositions[constraint]
            return positions.indices.allSatisfy { row[positions[$0]].sqlEquals(value($0)) }
        }
    }

    /// The key's hash → the primary key of the first row with it.
    private let firstRow: [Int: Int64]
    /// The other rows whose key has the same hash (a duplicate, or a hash collision).
    private let otherRows: [Int: [Int64]]
    /// False when no two rows of the segment have keys with the same hash: then no row holds the
    /// key of another row of the segment, and a row need not be looked up among its own segment's.
    var hasSharedHashes: Bool { !otherRows.isEmpty }
    /// A Bloom filter of the hashes, 16 bits per key: most look-ups are for keys that a segment
    /// does not hold (a new row is checked against every pending segment), and the filter answers
    /// those from a few cache lines instead of a miss in a large hash table.
    private let filter: [UInt64]
    private let filterMask: Int

    /// Indexes the inserts and updates of constrained entities among `rows`; deletes hold no key.
    init(_ rows: [ChangeSegment.Row]) {
        var hashes: [(hash: Int, primaryKey: Int64)] = []
        hashes.reserveCapacity(rows.count)
        for row in rows where row.change.entity.hasUniquenessConstraints && row.change.kind != .delete {
            let entity = row.change.entity
            for constraint in entity.uniqueKeyPositions.indices {
                let positions = entity.uniqueKeyPositions[constraint]
                if let hash = Self.hash(entity, constraint, count: positions.count, value: { row.change.values[positions[$0]] }) {
                    hashes.append((hash, row.id.primaryKey))
                }
            }
        }
        let bits = max(64, (hashes.count * 16).roundedUpToPowerOfTwo)
        var filter = [UInt64](repeating: 0, count: bits / 64)
        var firstRow: [Int: Int64] = Dictionary(minimumCapacity: hashes.count)
        var otherRows: [Int: [Int64]] = [:]
        for (hash, primaryKey) in hashes {
            for probe in 0..<3 {
                let bit = Self.filterBit(probe, of: hash, mask: bits - 1)
                filter[bit >> 6] |= 1 << UInt64(bit & 63)
            }
            if firstRow[hash] == nil {
                firstRow[hash] = primaryKey
            } else {
                otherRows[hash, default: []].append(primaryKey)
            }
        }
        self.filter = filter
        self.filterMask = bits - 1
        self.firstRow = firstRow
        self.otherRows = otherRows
    }

    /// Calls `body` with the primary key of each row that may hold the key with `hash` (usually
    /// none, else one). A closure rather than an array: a save looks up each of its rows, and
    /// most look-ups that find a candidate find one.
    func forEachCandidate(forHash hash: Int, _ body: (Int64) throws -> Void) rethrows {
        guard filterHasBits(of: hash), let first = firstRow[hash] else { return }
        try body(first)
        for other in otherRows[hash] ?? [] { try body(other) }
    }

    /// The filter's three bits for `hash`, by double hashing (the hash is already well mixed).
    private static func filterBit(_ probe: Int, of hash: Int, mask: Int) -> Int {
        (hash &+ probe &* ((hash >> 32) | 1)) & mask
    }

    private func filterHasBits(of hash: Int) -> Bool {
        for probe in 0..<3 {
            let bit = Self.filterBit(probe, of: hash, mask: filterMask)
            if filter[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// Nil when a value is NULL. Values are hashed in the form in which SQL's equal values are
    /// equal.
    private static func hash(
        _ entity: EntityDescription, _ constraint: Int, count: Int, value: (Int) -> StoreValue
    ) -> Int? {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(entity))
        hasher.combine(constraint)
        for position in 0..<count {
            let value = value(position)
            if value.isNull { return nil }
            hasher.combine(value.comparisonKey)
        }
        return hasher.finalize()
    }
}

extension ChangeSegment {
    /// Calls `body` with each insert or update in this segment that holds `key`, but for the row
    /// with primary key `excluded`.
    func forEachRow(holding key: UniqueKeyIndex.Key, except excluded: Int64? = nil, _ body: (Row) throws -> Void) rethrows {
        guard let uniqueKeys else { return }
        try uniqueKeys.forEachCandidate(forHash: key.hash) { primaryKey in
            guard primaryKey != excluded, let index = index(ofPrimaryKey: primaryKey) else { return }
            let change = rows[index].change
            if change.entity === key.entity && change.kind != .delete && key.isHeld(by: change.values) {
                try body(rows[index])
            }
        }
    }
}

extension Int {
    fileprivate var roundedUpToPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
