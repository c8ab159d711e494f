import Foundation

/// Decodes a job's parameters from the fields its file was parsed into, without reading the
/// text a second time: under a backlog of small jobs, `JSONDecoder` on the file's bytes was a
/// sixth of the runner's coordinating time per job.
///
/// It answers only where `JSONDecoder` is known to give the same value: strings, booleans,
/// null, arrays, objects, integers into integer types that hold them, and numbers into
/// `Double`. Where `JSONDecoder` fails for certain (a string where an integer is wanted, a
/// missing key) it throws the same kind of `DecodingError`, so that a type that catches one
/// and tries something else (`JSONValue` does) goes on as it would. Where the answer is not
/// certain it declines: a number into an integer or into `Float`, an integer outside its type
/// or 0 into `Double`, `Date`, `URL`, `Data` and `Decimal` (which `JSONDecoder` decodes by rules
/// of its own), `superDecoder`. A decline is recorded, not only thrown, since a type may catch
/// it: ``JobFile/parameters(as:)`` then decodes the text with `JSONDecoder`, which decides,
/// and a failed decode goes the same way, so that errors are worded by `JSONDecoder`.
struct FieldDecoder {
    /// Whether anything declined, shared by every container of one decode.
    private final class Outcome {
        var declined = false
    }

    /// What a decline throws; ``decode(_:from:)`` returns nil whatever was thrown.
    private struct Declined: Error {}

    /// The value, or nil when the decoder declined anywhere.
    static func decode<T: Decodable>(_ type: T.Type, from fields: [String: JSONValue]) -> T? {
        let outcome = Outcome()
        let root = Node(value: .object(fields), codingPath: [], outcome: outcome)
        guard let value = try? root.decodeValue(T.self), !outcome.declined else { return nil }
        return value
    }

    /// One value and where it is; every container decodes through ``decodeValue(_:)``.
    private struct Node: Decoder {
        let value: JSONValue
        let codingPath: [any CodingKey]
        let outcome: Outcome

        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func decline() -> Declined {
            outcome.declined = true
            return Declined()
        }

        func child(_ value: JSONValue, _ key: any CodingKey) -> Node {
            Node(value: value, codingPath: codingPath + [key], outcome: outcome)
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case let .object(fields) = value else { throw mismatch([String: Any].self) }
            return KeyedDecodingContainer(Keyed<Key>(node: self, fields: fields))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case let .array(elements) = value else { throw mismatch([Any].self) }
            return Unkeyed(node: self, elements: elements)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(node: self)
        }

        /// What `JSONDecoder` throws for this type and value, too: no value for null, a type
        /// mismatch for the rest.
        func mismatch<T>(_ type: T.Type) -> DecodingError {
            if case .null = value {
                return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
            }
            return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found \(value.typeDescription) instead."))
        }

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }

        func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            // By type first: a generic caller (an array's elements) reaches the scalars here
            // rather than through the containers' typed methods.
            if T.self == String.self {
                guard case let .string(string) = value else { throw mismatch(T.self) }
                return string as! T
            }
            if T.self == Bool.self {
                guard case let .bool(bool) = value else { throw mismatch(T.self) }
                return bool as! T
            }
            let isNumeric = T.self == Double.self || T.self == Float.self || T.self is any FixedWidthInteger.Type
            if isNumeric {
                switch value {
                case let .number(number) where T.self == Double.self:
                    return number as! T
                case let .integer(integer):
                    if let exact = Self.integer(integer, as: T.self) { return exact }
                    throw decline()
                case .number:
                    throw decline()
                default:
                    throw mismatch(T.self)
                }
            }
            if T.self == Date.self || T.self == URL.self || T.self == Data.self || T.self == Decimal.self {
                throw decline()
            }
            return try T(from: self)
        }

        /// `integer` as `T` when `T` is an integer type that holds it, or `Double` and it is a
        /// whole number that a `Double` holds exactly and not 0 (`-0` is `-0.0` for `JSONDecoder`).
        static func integer<T>(_ integer: Int, as type: T.Type) -> T? {
            switch type {
            case is Int.Type: return integer as? T
            case is Int64.Type: return Int64(exactly: integer) as? T
            case is Int32.Type: return Int32(exactly: integer) as? T
            case is Int16.Type: return Int16(exactly: integer) as? T
            case is Int8.Type: return Int8(exactly: integer) as? T
            case is UInt.Type: return UInt(exactly: integer) as? T
            case is UInt64.Type: return UInt64(exactly: integer) as? T
            case is UInt32.Type: return UInt32(exactly: integer) as? T
            case is UInt16.Type: return UInt16(exactly: integer) as? T
            case is UInt8.Type: return UInt8(exactly: integer) as? T
            case is Double.Type:
                guard integer != 0, integer.magnitude <= 1 << 53 else { return nil }
                return Double(integer) as? T
            default: return nil
            }
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let node: Node
        let fields: [String: JSONValue]

        var codingPath: [any CodingKey] { node.codingPath }
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            fields[key.stringValue] != nil
        }

        func value(for key: Key) throws -> Node {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: node.codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
            }
            return node.child(value, key)
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            try value(for: key).decodeNil()
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try value(for: key).decodeValue(T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try value(for: key).container(keyedBy: NestedKey.self)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try value(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            throw node.decline()
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            throw node.decline()
        }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let node: Node
        let elements: [JSONValue]
        private(set) var currentIndex = 0

        init(node: Node, elements: [JSONValue]) {
            self.node = node
            self.elements = elements
        }

        var codingPath: [any CodingKey] { node.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex == elements.count }

        private struct Index: CodingKey {
            let intValue: Int?
            var stringValue: String { "Index \(intValue ?? 0)" }
            init(intValue: Int) { self.intValue = intValue }
            init?(stringValue: String) { nil }
        }

        /// What `JSONDecoder` throws for a read past the last element.
        private var atEnd: DecodingError {
            .valueNotFound(Any.self, .init(codingPath: node.codingPath, debugDescription: "Unkeyed container is at end."))
        }

        mutating func next() throws -> Node {
            guard !isAtEnd else { throw atEnd }
            defer { currentIndex += 1 }
            return node.child(elements[currentIndex], Index(intValue: currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw atEnd }
            guard case .null = elements[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try next().decodeValue(T.self)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: NestedKey.self)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next().unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            throw node.decline()
        }
    }

    private struct Single: SingleValueDecodingContainer {
        let node: Node

        var codingPath: [any CodingKey] { node.codingPath }

        func decodeNil() -> Bool {
            node.decodeNil()
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try node.decodeValue(T.self)
        }
    }
}
