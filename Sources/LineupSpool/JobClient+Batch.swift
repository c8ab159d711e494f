import Foundation

extension JobClient {
    /// Enqueues a batch: `jobs`, and a `callback` job that runs once all of them have settled
    /// (on success only, or always: `runsCallback`). It is all enqueued at once, as
    /// ``enqueue(contentsOf:name:)`` does: one bulk file in a spool, one transaction in a
    /// database, so the callback never exists without its jobs.
    ///
    /// A batch is no new kind of thing in the queue: each job without an id gets one
    /// (`<batch id>.<n>`, from 1), and the callback names them all in its `after` list, with
    /// `afterSettled` for ``BatchCallbackCondition/whenAllSettled``. Its task reads what they did
    /// with ``JobRequest``'s `dependencyReports()`.
    ///
    /// ```swift
    /// let batch = try client.enqueueBatch(
    ///     stations.map { try JobFile(kind: "fetch-buoy", parameters: ["url": .string($0)]) },
    ///     callback: try JobFile(kind: "statistics", parameters: ["output": "stats"]),
    ///     runsCallback: .whenAllSettled)
    /// ```
    ///
    /// - Parameter id: the batch's id (the callback's, unless it has its own); a generated one
    ///   when nil.
    /// - Throws: ``SpoolError`` ``SpoolError/Code/invalidField`` when `jobs` is empty or two jobs
    ///   share an id; the destination's error when it cannot take the batch.
    @discardableResult
    public func enqueueBatch(
        _ jobs: [JobFile], callback: JobFile, runsCallback: BatchCallbackCondition = .whenAllDone, id: String? = nil
    ) throws -> BatchReceipt {
        guard !jobs.isEmpty else {
            throw SpoolError(code: .invalidField, path: nil, message: "a batch needs at least one job")
        }
        let batchID = id ?? callback.id ?? "batch-" + JobNameGenerator.shared.next()
        var members: [JobFile] = []
        for (index, job) in jobs.enumerated() {
            members.append(job.id == nil ? try job.replacing(["id": .string("\(batchID).\(index + 1)")]) : job)
        }
        let jobIDs = members.compactMap(\.id)
        if let repeated = Dictionary(grouping: jobIDs, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw SpoolError(code: .invalidField, path: nil, message: "two jobs of batch \(batchID) share the id \(repeated)")
        }
        let callbackID = callback.id ?? batchID
        var changes: [String: JSONValue] = [
            "id": .string(callbackID), "after": .array((callback.after + jobIDs).map { .string($0) }),
        ]
        if runsCallback == .whenAllSettled { changes["afterSettled"] = .bool(true) }
        let enqueued = try enqueue(contentsOf: members + [try callback.replacing(changes)], name: batchID)
        return BatchReceipt(batchID: batchID, jobIDs: jobIDs, callbackID: callbackID, enqueued: enqueued)
    }
}
