/// When a batch's callback runs (``JobClient/enqueueBatch(_:callback:runsCallback:id:)``).
public enum BatchCallbackCondition: Sendable, Hashable {
    /// Once every job of the batch is done; if one fails for good, the callback fails too,
    /// naming it ("dependency failed"). Sidekiq's `success`, Oban's `completed`.
    case whenAllDone
    /// Once every job of the batch has settled, done or failed: the callback reads which
    /// (``JobFile/afterSettled``). Sidekiq's `complete`.
    case whenAllSettled
}

/// What ``JobClient/enqueueBatch(_:callback:runsCallback:id:)`` enqueued.
public struct BatchReceipt: Sendable, Hashable {
    /// The batch's id: the callback's id, unless the callback had one of its own.
    public var batchID: String
    /// The ids of the batch's jobs, in their order: the callback's `after` list.
    public var jobIDs: [String]
    /// The callback's id.
    public var callbackID: String
    /// Where the batch went: one bulk file in a spool, one transaction in a database.
    public var enqueued: EnqueueReceipt
}
