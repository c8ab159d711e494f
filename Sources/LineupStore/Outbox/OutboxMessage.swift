package import Foundation

/// A message that travels with a context's changes and reaches the disk in the transaction of the
/// flush that writes them: a job to enqueue, to the jobs layer (see LineupJobs's
/// `ManagedObjectContext.enqueue(_:)`), which is the only layer that knows what `body` means.
///
/// A message moves as an inserted row does: a context's save moves it into its parent, the flush
/// (main → writer → disk) writes it with the rows; a rollback, a reset, or a context dropped
/// unsaved loses it. The store writes it into its outbox (`lineup_outbox`), unless whoever
/// flushes routes it elsewhere in the same transaction (the PostgreSQL daemon's jobs table).
package struct OutboxMessage: Sendable, Hashable {
    /// Who reads it back: the jobs layer's messages are on ``OutboxMessage/jobChannel``.
    package let channel: String
    /// Unique across every message ever written to a store: where the reader delivers it, it is
    /// the name that lets a delivery cut short by a crash be recognised as done (the spool
    /// name of a job).
    package let key: String
    /// What the reader decodes (a job file's JSON).
    package let body: Data

    package init(channel: String, key: String, body: Data) {
        self.channel = channel
        self.key = key
        self.body = body
    }

    /// The channel of the jobs that LineupJobs enqueues with the data.
    package static let jobChannel = "lineup.job"
}

/// What a flush's transaction runs for the messages that reach the writer, in place of the
/// store's outbox insertions (see ``PersistentContainer/flush(including:routingOutbox:)``).
package typealias OutboxRoute = ([OutboxMessage]) throws -> [FlushStatement]
