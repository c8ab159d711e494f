extension ManagedObjectContext {
    /// Adds a message to what this context's next save moves up, with its changes: it reaches the
    /// disk in the transaction of the flush that writes them, and is lost with them by a
    /// ``rollback()``, a ``reset()``, or a context dropped unsaved. Call it on the context's
    /// queue, as an insert. (LineupJobs's `enqueue(_:)` of a job file is the public face of it.)
    package func enqueue(_ message: OutboxMessage) {
        preconditionOnQueue()
        outbox.append(message)
    }

    /// ``enqueue(_:)`` for several messages, in their order.
    package func enqueue(contentsOf messages: some Sequence<OutboxMessage>) {
        preconditionOnQueue()
        outbox.append(contentsOf: messages)
    }

    /// The messages this context holds for its next save: enqueued here, or saved into here by
    /// its children. Read it on the context's queue.
    package var pendingOutboxMessages: [OutboxMessage] {
        preconditionOnQueue()
        return outbox
    }

    /// Takes messages that a child saved (on this context's queue), after the child's changes, so
    /// that both move on together at this context's next save.
    func acceptOutbox(_ messages: [OutboxMessage]) {
        preconditionOnQueue()
        outbox.append(contentsOf: messages)
    }
}
