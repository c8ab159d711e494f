import BuoyXML
public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool
import Logging

/// `import-buoy`: imports a buoy XML file (NDBC latest_obs RSS, IOOS SOS observations, or the
/// station catalogue; detected from the document) into the journal, upserting by natural key,
/// through ``BuoyDocumentImporter`` (which `fetch-buoy` shares).
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
        let outcome = try BuoyDocumentImporter(context: context, task: self).importDocument(
            at: input, source: input.path, title: input.lastPathComponent, details: ["input": .string(input.path)])
        // After the importer's last chunk: enqueued with the final save, which a failure never makes.
        if let statisticsOutput {
            let followUp = try JobFile(
                kind: StatisticsTask.kind, id: "\(jobID)-statistics", parameters: ["output": .string(statisticsOutput)])
            try context.enqueue(followUp)
            logger.info("statistics enqueued with the import", metadata: ["job": "\(jobID)", "follow_up": "\(jobID)-statistics"])
        }
        return outcome
    }
}
