/// A message in a store's outbox (`lineup_outbox`): written by a flush, waiting for its reader
/// to deliver it and remove it (``PersistentContainer/removeFromOutbox(_:)``).
package struct OutboxEntry: Sendable, Hashable {
    /// The row's id: the outbox is read in this order, which is the order the messages were
    /// written in.
    package let id: Int64
    package let message: OutboxMessage

    package init(id: Int64, message: OutboxMessage) {
        self.id = id
        self.message = message
    }
}
