extension PersistentContainer {
    /// The oldest messages of `channel` that flushes wrote into the store's outbox and that no
    /// reader removed yet, at most `limit`, in the order they were written. Read with the writer's
    /// connection, on its queue: the one reader that tasks' long reads never hold up.
    package func outboxEntries(on channel: String, limit: Int) throws -> [OutboxEntry] {
        try writerContext.performAndWait {
            try store.outboxEntries(on: channel, limit: limit, reader: .writer)
        }
    }

    /// Removes delivered entries from the outbox, in a transaction of their own on the writer's
    /// queue (writes to the store are the writer's alone). The writer's changes, if an earlier
    /// flush left any, are not written by it.
    package func removeFromOutbox(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        let dialect = store.dialect
        // Statements of bounded length (SQLite takes at most 32,766 arguments), in one transaction.
        let removals = stride(from: 0, to: ids.count, by: 500).map { start in
            OutboxSQL.removal(of: Array(ids[start..<min(start + 500, ids.count)]), dialect)
        }
        try writerContext.performAndWait {
            _ = try writerContext.writeToStore(ChangeSet(), attaching: removals)
        }
    }
}
