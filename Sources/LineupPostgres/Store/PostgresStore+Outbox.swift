import LineupStore

extension PostgresStore {
    var dialect: SQLDialect { .postgres }

    func outboxEntries(on channel: String, limit: Int, reader: StoreReader) throws -> [OutboxEntry] {
        try withSession(for: reader) { session in
            try session.rows(OutboxSQL.selection(.postgres), [.text(channel), .integer(Int64(limit))]).map { values in
                guard let entry = OutboxSQL.entry(values) else {
                    throw StoreError(.storeCorrupt, "\(location): lineup_outbox holds a row that Lineup did not write")
                }
                return entry
            }
        }
    }
}
