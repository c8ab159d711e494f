import Foundation
import GRDB

extension SQLiteStore {
    package var dialect: SQLDialect { .sqlite }

    package func outboxEntries(on channel: String, limit: Int, reader: StoreReader) throws -> [OutboxEntry] {
        try read(on: reader) { db in
            let statement = SQLiteStatement(try db.cachedStatement(sql: OutboxSQL.selection(.sqlite)), in: db)
            statement.bind([.text(channel), .integer(Int64(limit))])
            defer { statement.reset() }
            var entries: [OutboxEntry] = []
            while try statement.step() {
                guard let entry = OutboxSQL.entry((Int32(0)..<4).map { statement.value(at: $0) }) else {
                    throw StoreError(.storeCorrupt, "\(url.path): lineup_outbox holds a row that Lineup did not write")
                }
                entries.append(entry)
            }
            return entries
        }
    }
}
