import BuoyXML
public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool
import Logging

/// `import-buoy`: imports a buoy XML file (NDBC latest_obs RSS, IOOS SOS observations, or the
/// station catalogue; detected from the document) into the journal, upserting by natural key.
///
/// The file is checked for well-formedness first (a fast libxml2 pass), so a malformed document
/// fails the job with its line and column before anything of it is saved. The import then saves
/// in chunks to keep memory flat; a job interrupted after some chunks (shutdown, I/O error)
/// leaves those chunks in place, and its re-run upserts the rest without duplicating anything.
///
/// Nothing done is not success: a document of another format fails the job, naming its root
/// element and namespace, and so does a document that yields no observation or station (no
/// item or row with a readable time, only properties the model does not hold), with what it
/// was found to hold. Neither is retried, and neither stores anything (the reader refuses
/// them before or without delivering a record). A document that yields some records and skips
/// others succeeds, and its result says how many were skipped, why, and the first of each.
///
/// With `statistics` (an output path), the import enqueues a `statistics` job that writes there,
/// with its rows (`context.enqueue(_:)`): the statistics job exists once the import's rows are
/// on disk, and never for an import that failed. Its id is the import's with `-statistics`.
public final class ImportBuoyTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        public let input: String
        /// Where a `statistics` job, enqueued with the imported rows, writes; nil: none.
        public let statistics: String?
    }

    public static let kind = "import-buoy"
    static let chunkSize = 10_000

    public let input: URL
    /// The `statistics` job's output, as the job file gave it (the statistics job resolves it).
    public let statisticsOutput: String?

    public init(request: JobRequest, parameters: Parameters) throws {
        self.input = try request.resolveInput(parameters.input)
        if let output = parameters.statistics {
            // Checked now, so that a bad path fails this job rather than the follow-up.
            _ = try request.resolveOutput(output)
        }
        self.statisticsOutput = parameters.statistics
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let reader = BuoyXMLReader()
        do {
            // Well-formedness first, so that nothing of a malformed document is saved. A document
            // of an unknown format passes here; the read refuses it at its root element, naming
            // it, before delivering anything.
            _ = try reader.validate(contentsOf: input)
        } catch let error as BuoyXMLError {
            throw JobError(.jobFailed, error.description, isRetryable: error.code == .unreadableFile, underlying: error)
        }
        // The number of records is known only at the end (SOS rows are text inside one element):
        // progress counts records with an unknown total until then.
        let upserter = BuoyUpserter(
            context: context, chunkSize: Self.chunkSize, checkCancellation: { [self] in try checkCancellation() }
        ) { [self] done in
            reportProgress(completed: Int64(done), total: 0)
            logger.info("progress", metadata: ["job": "\(jobID)", "records": "\(done)"])
        }
        let summary: BuoyReadSummary
        do {
            summary = try reader.read(contentsOf: input, onObservation: upserter.add, onStation: upserter.add)
            try upserter.finish()
        } catch let error as BuoyXMLError {
            throw JobError(.jobFailed, error.description, isRetryable: error.code == .unreadableFile, underlying: error)
        }
        let records = Int64(upserter.recordsDone)
        reportProgress(completed: records, total: records)
        if let statisticsOutput {
            let followUp = try JobFile(
                kind: StatisticsTask.kind, id: "\(jobID)-statistics", parameters: ["output": .string(statisticsOutput)])
            try context.enqueue(followUp)
            logger.info("statistics enqueued with the import", metadata: ["job": "\(jobID)", "follow_up": "\(jobID)-statistics"])
        }
        let counts = upserter.counts
        var details: [String: JSONValue] = ["format": .string(summary.format.rawValue), "input": .string(input.path)]
        if !summary.ignoredValues.isEmpty {
            details["ignoredValues"] = .object(summary.ignoredValues.mapValues { .integer($0) })
        }
        if !summary.rejectedValues.isEmpty {
            details["rejectedValues"] = .object(summary.rejectedValues.mapValues { .integer($0) })
        }
        var outcomeSummary =
            "\(input.lastPathComponent) (\(summary.format.rawValue)): \(counts.observationsInserted) observations inserted, \(counts.observationsUpdated) updated, \(counts.stationsInserted) stations inserted, \(summary.ignoredValueCount) values ignored, \(summary.rejectedValueCount) rejected"
        if !summary.rejectedRecords.isEmpty {
            details["rejectedRecords"] = .object(summary.rejectedRecords.mapValues { .integer($0) })
            details["rejectedRecordExamples"] = .object(summary.rejectedRecordExamples.mapValues { .string($0.description) })
        }
        if let skipped = summary.skippedRecordsDescription {
            outcomeSummary += "; \(skipped)"
            logger.info("records skipped", metadata: ["job": "\(jobID)", "input": "\(input.path)", "skipped": "\(skipped)"])
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
