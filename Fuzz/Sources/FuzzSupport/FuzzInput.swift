import Foundation

/// Reads typed values off a fuzz input, front to back. Once the bytes run out every read
/// returns zeros, so a harness never has to check for the end: libFuzzer shortens inputs by
/// itself, and a short input simply means small values.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<count` from one byte (`count` is at most 256).
    public mutating func choice(_ count: Int) -> Int {
        expect(count > 0 && count <= 256, "choice(\(count))")
        return Int(byte()) % count
    }

    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            value |= UInt64(byte()) << UInt64(shift)
        }
        return value
    }

    public mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    /// Any of the 2^64 bit patterns, NaNs, infinities and subnormals included.
    public mutating func double() -> Double { Double(bitPattern: uint64()) }

    /// Up to `maximumLength` raw bytes, the length taken from the input.
    public mutating func bytes(maximumLength: Int = 255) -> [UInt8] {
        let length = min(Int(byte()), maximumLength, max(0, bytes.count - position))
        defer { position += length }
        return Array(bytes[position..<position + length])
    }

    /// Text from raw bytes; invalid UTF-8 becomes U+FFFD, as it would from any reader.
    public mutating func text(maximumLength: Int = 255) -> String {
        String(decoding: bytes(maximumLength: maximumLength), as: UTF8.self)
    }
}

/// The whole input as bytes, for a target that hands it to a reader as it is.
public func inputData(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Data {
    guard let data else { return Data() }
    return Data(bytes: data, count: size)
}
