public import LineupSpool
public import LineupStore

extension ManagedObjectContext {
    /// Enqueues `job` with this context's changes: the job exists exactly when they reach the
    /// disk. Call it on the context's queue (inside `perform` or `performAndWait`, or in a task's
    /// ``JobTask/run(in:)``), as you would insert an object.
    ///
    /// The job moves as an inserted object does: `save()` moves it into the parent context, and
    /// the flush (main → writer → disk) writes it in the transaction that writes the rows. A
    /// `rollback()`, a `reset()`, a context dropped unsaved, or a task whose attempt fails (its
    /// context is rolled back) enqueues nothing. On SQLite the flush writes the job into the
    /// store's outbox, and the daemon moves it into the spool once the flush has committed,
    /// exactly once across crashes; on PostgreSQL the daemon's flush inserts it into the jobs
    /// table. See <doc:EnqueueWithYourData>.
    ///
    /// - Throws: `SpoolError` when the job cannot be encoded.
    public func enqueue(_ job: JobFile) throws(SpoolError) {
        enqueue(try OutboxJobName.message(for: job))
    }

    /// Enqueues several jobs with this context's changes, in their order (see ``enqueue(_:)``).
    /// Either all of them are enqueued here or, when one cannot be encoded, none.
    public func enqueue(contentsOf jobs: some Sequence<JobFile>) throws(SpoolError) {
        var messages: [OutboxMessage] = []
        for job in jobs { messages.append(try OutboxJobName.message(for: job)) }
        enqueue(contentsOf: messages)
    }
}
