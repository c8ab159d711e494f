/// Decodes one row of an ``AggregateRequest`` (its values keyed by the names given with `as:`)
/// into a `Decodable` type, as GRDB decodes its rows: each stored property of the type is read
/// from the value of the same name, by its type's ``StoreValueConvertible`` conformance (`Int`,
/// `Double`, `String`, `Bool`, `Date`, `Data`, `Int64`, and optionals of them).
struct AggregateRowDecoder: Decoder {
    let row: [String: StoreValue]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "an aggregate row is decoded as a struct, by name, not as an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            StoreValue.self, .init(codingPath: [], debugDescription: "an aggregate row is decoded as a struct, by name, not as one value"))
    }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: [String: StoreValue]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row[key.stringValue] != nil }

        func decodeNil(forKey key: Key) throws -> Bool {
            try value(forKey: key) == .null
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let value = try value(forKey: key)
            guard let convertible = T.self as? any StoreValueConvertible.Type else {
                throw DecodingError.typeMismatch(
                    T.self,
                    .init(codingPath: [key], debugDescription: "\(T.self) is not a type a store value converts to (Int, Double, String, Bool, Date...)"))
            }
            guard let decoded = convertible.init(storeValue: value) as? T else {
                throw DecodingError.typeMismatch(
                    T.self, .init(codingPath: [key], debugDescription: "the aggregate `\(key.stringValue)` is \(value), not a \(T.self)"))
            }
            return decoded
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: [key], debugDescription: "an aggregate row holds single values, not nested objects"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: [key], debugDescription: "an aggregate row holds single values, not arrays"))
        }

        func superDecoder() throws -> any Decoder { AggregateRowDecoder(row: row) }

        func superDecoder(forKey key: Key) throws -> any Decoder { AggregateRowDecoder(row: row) }

        private func value(forKey key: Key) throws -> StoreValue {
            guard let value = row[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: [], debugDescription: "the request names no group key or aggregate `\(key.stringValue)` (it has: \(row.keys.sorted().joined(separator: ", ")))"))
            }
            return value
        }
    }
}
