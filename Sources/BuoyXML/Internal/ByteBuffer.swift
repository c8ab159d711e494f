/// A growable byte buffer with a hard size limit, for accumulating character data without
/// building Swift strings byte by byte. It always keeps one spare byte so that its contents
/// can be NUL-terminated in place for C functions.
final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// The most bytes the buffer may hold.
    let limit: Int

    init(initialCapacity: Int = 256, limit: Int) {
        self.limit = limit
        self.capacity = max(1, min(initialCapacity, limit))
        self.base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base, count: count)
    }

    /// Appends `byte`; `false` (and nothing appended) when the buffer is at its limit.
    @inline(__always)
    func append(_ byte: UInt8) -> Bool {
        if count == capacity {
            guard grow(toHold: count + 1) else { return false }
        }
        base[count] = byte
        count += 1
        return true
    }

    /// Appends `bytes`; `false` (and nothing appended) when they would exceed the limit.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return true }
        if count + bytes.count > capacity {
            guard grow(toHold: count + bytes.count) else { return false }
        }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
        return true
    }

    func removeAll() {
        count = 0
    }

    func removeLast(_ n: Int) {
        count -= n
    }

    /// Whether the buffer ends with `suffix`.
    func hasSuffix(_ suffix: [UInt8]) -> Bool {
        guard suffix.count <= count else { return false }
        var offset = count - suffix.count
        for byte in suffix {
            if base[offset] != byte { return false }
            offset += 1
        }
        return true
    }

    /// Whether the buffer holds exactly `other`.
    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard other.count == count else { return false }
        guard let otherBase = other.baseAddress, count > 0 else { return true }
        return memcmp(base, otherBase, count) == 0
    }

    /// Replaces the contents with `bytes` (within the limit; `false` otherwise).
    func assign(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        removeAll()
        return append(bytes)
    }

    var string: String {
        String(decoding: bytes, as: UTF8.self)
    }

    private func grow(toHold needed: Int) -> Bool {
        guard needed <= limit else { return false }
        let newCapacity = min(limit, max(needed, capacity * 2))
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + 1)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
