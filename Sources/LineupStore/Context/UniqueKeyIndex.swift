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
struct UniqueKeyIndex: Sendable {
    /// The values of one uniqueness constraint of an entity, hashed once for the look-ups in
    /// every segment.
    struct Key {
        unowned(unsafe) let entity: EntityDescription
        /// The constraint's number in `entity.uniquenessConstraints`.
        let constraint: Int
        /// The values are `source[positions[0]]`, `source[positions[1]]`, …: a row shares its
        /// values array instead of copying its key out of it.
        private let source: [StoreValue]
        private let positions: [Int]
        fileprivate let hash: Int

        /// The key `values` (in the order of the constraint's properties). Nil when a value is
        /// NULL: NULLs are distinct, as in SQL, so such a row holds no key.
        init?(_ values: [StoreValue], constraint: Int, of entity: EntityDescription) {
            let positions = values.count < Self.allPositions.count ? Self.allPositions[values.count] : Array(values.indices)
            self.init(source: values, positions: positions, constraint: constraint, of: entity)
        }

        /// `[0, 1, …, n - 1]` for small n, shared by the keys made of values.
        private static let allPositions = (0..<8).map { Array(0..<$0) }

        /// The key that a row of `entity` holds, or nil.
        init?(row: [StoreValue], constraint: Int, of entity: EntityDescription) {
            self.init(source: row, positions: entity.uniqueKeyPositions[constraint], constraint: constraint, of: entity)
        }

        private init?(source: [StoreValue], positions: [Int], constraint: Int, of entity: EntityDescription) {
            guard let hash = UniqueKeyIndex.hash(entity, constraint, count: positions.count, value: { source[positions[$0]] })
            else { return nil }
            self.entity = entity
            self.constraint = constraint
            self.source = source
            self.positions = positions
            self.hash = hash
        }

        /// In the order of the constraint's properties.
        var values: [StoreValue] { positions.map { source[$0] } }

        /// Appends the values to `list` (in the order of the constraint's properties).
        func appendValues(to list: inout [StoreValue]) {
            for position in positions { list.append(source[position]) }
        }

        /// Whether `row`, a row of `entity`, holds this key (as SQL compares values).
        func isHeld(by row: [StoreValue]) -> Bool {
            let rowPositions = entity.uniqueKeyPositions[constraint]
            return positions.indices.allSatisfy { row[rowPositions[$0]].sqlEquals(source[positions[$0]]) }
        }
    }

    /// The key's hash → the primary key of the first row with it.
    private var firstRow: [Int: Int64] = [:]
    /// The other rows whose key has the same hash (a duplicate, or a hash collision).
    private var otherRows: [Int: [Int64]] = [:]
    /// A Bloom filter of the hashes, 16 bits per key: most look-ups are for keys that a segment
    /// does not hold (a new row is checked against every pending segment), and the filter answers
    /// those from a few cache lines instead of a miss in a large hash table.
    private var filter: [UInt64] = []
    private var filterMask = 0

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
        filter = Array(repeating: 0, count: bits / 64)
        filterMask = bits - 1
        firstRow.reserveCapacity(hashes.count)
        for (hash, primaryKey) in hashes {
            for probe in 0..<3 {
                let bit = filterBit(probe, of: hash)
                filter[bit >> 6] |= 1 << UInt64(bit & 63)
            }
            if firstRow[hash] == nil {
                firstRow[hash] = primaryKey
            } else {
                otherRows[hash, default: []].append(primaryKey)
            }
        }
    }

    /// Calls `body` with the primary key of each row that may hold `key`.
    func forEachCandidate(for key: Key, _ body: (Int64) throws -> Void) rethrows {
        guard filterHasBits(of: key.hash), let first = firstRow[key.hash] else { return }
        try body(first)
        for other in otherRows[key.hash] ?? [] { try body(other) }
    }

    /// The filter's three bits for `hash`, by double hashing (the hash is already well mixed).
    private func filterBit(_ probe: Int, of hash: Int) -> Int {
        (hash &+ probe &* ((hash >> 32) | 1)) & filterMask
    }

    private func filterHasBits(of hash: Int) -> Bool {
        for probe in 0..<3 {
            let bit = filterBit(probe, of: hash)
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
    /// Calls `body` with each insert or update in this segment that holds `key`.
    func forEachRow(holding key: UniqueKeyIndex.Key, _ body: (Row) throws -> Void) rethrows {
        guard let uniqueKeys else { return }
        try uniqueKeys.forEachCandidate(for: key) { primaryKey in
            guard let index = index(ofPrimaryKey: primaryKey) else { return }
            let row = rows[index]
            guard row.change.entity === key.entity, row.change.kind != .delete, key.isHeld(by: row.change.values) else {
                return
            }
            try body(row)
        }
    }
}

extension Int {
    fileprivate var roundedUpToPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
