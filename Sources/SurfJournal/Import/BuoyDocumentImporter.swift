import BuoyXML
public import Foundation
public import LineupJobs
public import LineupSpool
public import LineupStore
import Logging

/// Imports one buoy XML document (NDBC latest_obs RSS, IOOS SOS observations, or the station
/// catalogue; detected from the document) into a task's context, upserting by natural key: the
/// one import path of `import-buoy`, which reads a file of the input directory, and of
/// `fetch-buoy`, which downloads the document into a temporary file first.
///
/// The document is checked for well-formedness first (a fast libxml2 pass), so a malformed one
/// fails with its line and column before anything of it is saved. The import then saves in
/// chunks to keep memory flat; an attempt interrupted after some chunks leaves those chunks in
/// place, and its re-run upserts the rest without duplicating anything.
///
/// Use it on the context's queue, inside the task's `run(in:)`.
public struct BuoyDocumentImporter: Sendable {
    /// Records saved into the main context at a time.
    public static let chunkSize = 10_000

    private let context: ManagedObjectContext
    private let task: JobTask

    /// An importer that works in `context` for `task`: it checks the task's cancellation between
    /// records, and reports its progress and logs with its job id.
    public init(context: ManagedObjectContext, task: JobTask) {
        self.context = context
        self.task = task
    }

    /// Imports the document in `file`.
    ///
    /// - Parameters:
    ///   - source: what errors and log lines name the document by: the file's path, or the
    ///     URL it was downloaded from.
    ///   - title: what the outcome's summary begins with (the file's name, the URL).
    ///   - details: the outcome's details beside what the import adds (the input, the URL).
    /// - Throws: ``JobError`` naming `source` (with the line and column for a malformed
    ///   document); retryable only when the file could not be read.
    public func importDocument(
        at file: URL, source: String, title: String, details: [String: JSONValue] = [:]
    ) throws -> JobOutcome {
        let reader = BuoyXMLReader()
        func jobError(_ error: BuoyXMLError) -> JobError {
            var named = error
            named.file = source
            return JobError(.jobFailed, named.description, isRetryable: error.code == .unreadableFile, underlying: named)
        }
        do {
            // Well-formedness first, so that nothing of a malformed document is saved. A document
            // of an unknown format passes here; the read refuses it at its root element, naming
            // it, before delivering anything.
            _ = try reader.validate(contentsOf: file)
        } catch let error as BuoyXMLError {
            throw jobError(error)
        }
        let task = self.task
        // The number of records is known only at the end (SOS rows are text inside one element):
        // progress counts records with an unknown total until then.
        let upserter = BuoyUpserter(
            context: context, chunkSize: Self.chunkSize, checkCancellation: { try task.checkCancellation() }
        ) { done in
            task.reportProgress(completed: Int64(done), total: 0)
            task.logger.info("progress", metadata: ["job": "\(task.jobID)", "records": "\(done)"])
        }
        let summary: BuoyReadSummary
        do {
            summary = try reader.read(contentsOf: file, onObservation: upserter.add, onStation: upserter.add)
            try upserter.finish()
        } catch let error as BuoyXMLError {
            throw jobError(error)
        }
        let records = Int64(upserter.recordsDone)
        task.reportProgress(completed: records, total: records)
        let counts = upserter.counts
        var details = details
        details["format"] = .string(summary.format.rawValue)
        if !summary.ignoredValues.isEmpty {
            details["ignoredValues"] = .object(summary.ignoredValues.mapValues { .integer($0) })
        }
        if !summary.rejectedValues.isEmpty {
            details["rejectedValues"] = .object(summary.rejectedValues.mapValues { .integer($0) })
        }
        var outcomeSummary =
            "\(title) (\(summary.format.rawValue)): \(counts.observationsInserted) observations inserted, \(counts.observationsUpdated) updated, \(counts.stationsInserted) stations inserted, \(summary.ignoredValueCount) values ignored, \(summary.rejectedValueCount) rejected"
        if !summary.rejectedRecords.isEmpty {
            details["rejectedRecords"] = .object(summary.rejectedRecords.mapValues { .integer($0) })
            details["rejectedRecordExamples"] = .object(summary.rejectedRecordExamples.mapValues { .string($0.description) })
        }
        if let skipped = summary.skippedRecordsDescription {
            outcomeSummary += "; \(skipped)"
            task.logger.info("records skipped", metadata: ["job": "\(task.jobID)", "input": "\(source)", "skipped": "\(skipped)"])
        }
        return JobOutcome(
            summary: outcomeSummary,
            counts: [
                "observationsInserted": counts.observationsInserted,
                "observationsUpdated": counts.observationsUpdated,
                "observationsUnchanged": counts.observationsUnchanged,
                "stationsInserted": counts.stationsInserted,
                "stationsUpdated": counts.stationsUpdated,
                "stationsUnchanged": counts.stationsUnchanged,
                "ignoredValues": summary.ignoredValueCount,
                "rejectedValues": summary.rejectedValueCount,
                "rejectedRecords": summary.rejectedRecordCount,
            ],
            details: details)
    }
}
