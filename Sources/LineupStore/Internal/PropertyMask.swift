/// A set of property indexes (an entity has at most 64 properties).
struct PropertyMask: Sendable, Hashable {
    static let capacity = 64
    private(set) var bits: UInt64

    static let empty = PropertyMask(bits: 0)
    static func all(_ count: Int) -> PropertyMask {
        PropertyMask(bits: count >= 64 ? .max : (UInt64(1) << UInt64(count)) &- 1)
    }

    init(bits: UInt64) { self.bits = bits }

    var isEmpty: Bool { bits == 0 }
    func contains(_ index: Int) -> Bool { bits & (UInt64(1) << UInt64(index)) != 0 }
    mutating func insert(_ index: Int) { bits |= UInt64(1) << UInt64(index) }
    func union(_ other: PropertyMask) -> PropertyMask { PropertyMask(bits: bits | other.bits) }
    func intersection(_ other: PropertyMask) -> PropertyMask { PropertyMask(bits: bits & other.bits) }
    func subtracting(_ other: PropertyMask) -> PropertyMask { PropertyMask(bits: bits & ~other.bits) }

    /// The indexes in the set, in increasing order.
    var indexes: [Int] {
        var result: [Int] = []
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            result.append(index)
            remaining &= remaining &- 1
        }
        return result
    }
}
