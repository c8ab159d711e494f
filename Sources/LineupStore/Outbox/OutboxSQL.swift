import Foundation

/// The outbox's statements, one text spelled for each engine (see ``SQLDialect``). The table is
/// the store schema's (version 2, ``StoreSchema``).
package enum OutboxSQL {
    /// The statement that writes `message` into the outbox, in the flush's transaction.
    package static func insertion(of message: OutboxMessage, _ dialect: SQLDialect) -> FlushStatement {
        FlushStatement(
            "INSERT INTO lineup_outbox (channel, key, body) VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)), \(dialect.placeholder(3)))",
            arguments: [.text(message.channel), .text(message.key), .blob(message.body)], expectedRowCount: 1)
    }

    /// The statement that removes delivered entries. Expects no count: an entry removed already
    /// (by a removal whose success was not heard of) is simply gone.
    package static func removal(of ids: [Int64], _ dialect: SQLDialect) -> FlushStatement {
        let list = ids.indices.map { dialect.placeholder($0 + 1) }.joined(separator: ", ")
        return FlushStatement("DELETE FROM lineup_outbox WHERE id IN (\(list))", arguments: ids.map { .integer($0) })
    }

    /// The oldest entries of a channel, at most `limit` (bound as arguments 1 and 2).
    package static func selection(_ dialect: SQLDialect) -> String {
        "SELECT id, channel, key, body FROM lineup_outbox WHERE channel = \(dialect.placeholder(1)) ORDER BY id LIMIT \(dialect.placeholder(2))"
    }

    /// An entry from the values of a row of ``selection(_:)``; nil for a row of other types, which
    /// no Lineup writes.
    package static func entry(_ values: [StoreValue]) -> OutboxEntry? {
        guard values.count == 4, case let .integer(id) = values[0], case let .text(channel) = values[1],
            case let .text(key) = values[2]
        else { return nil }
        let body: Data
        switch values[3] {
        case let .blob(data): body = data
        case let .text(text): body = Data(text.utf8)
        default: return nil
        }
        return OutboxEntry(id: id, message: OutboxMessage(channel: channel, key: key, body: body))
    }
}
