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
public final class ImportBuoyTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        public let input: String
    }

    public static let kind = "import-buoy"
    static let chunkSize = 10_000

    public let input: URL

    public init(request: JobRequest, parameters: Parameters) throws {
        self.input = try request.resolveInput(parameters.input)
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let reader = BuoyXMLReader()
        let validation: BuoyXMLValidation
        do {
            validation = try reader.validate(contentsOf: input)
        } catch let error as BuoyXMLError {
            throw JobError(.jobFailed, error.description, isRetryable: error.code == .unreadableFile, underlying: error)
        }
        guard validation.format != nil else {
            throw JobError(
                .jobFailed, "\(input.path): not a buoy document Lineup knows (NDBC RSS, SOS or station catalogue)",
                isRetryable: false)
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
        let counts = upserter.counts
        var details: [String: JSONValue] = ["format": .string(summary.format.rawValue), "input": .string(input.path)]
        if !summary.ignoredValues.isEmpty {
            details["ignoredValues"] = .object(summary.ignoredValues.mapValues { .integer($0) })
        }
        if !summary.rejectedValues.isEmpty {
            details["rejectedValues"] = .object(summary.rejectedValues.mapValues { .integer($0) })
        }
        if !summary.rejectedRecords.isEmpty {
            details["rejectedRecords"] = .object(summary.rejectedRecords.mapValues { .integer($0) })
        }
        return JobOutcome(
            summary:
                "\(input.lastPathComponent) (\(summary.format.rawValue)): \(counts.observationsInserted) observations inserted, \(counts.observationsUpdated) updated, \(counts.stationsInserted) stations inserted, \(summary.ignoredValueCount) values ignored, \(summary.rejectedValueCount) rejected",
            counts: [
                "observationsInserted": counts.observationsInserted,
                "observationsUpdated": counts.observationsUpdated,
                "observationsUnchanged": counts.observationsUnchanged,
                "stationsInserted": counts.stationsInserted,
                "stationsUpdated": counts.stationsUpdated,
                "stationsUnchanged": counts.stationsUnchanged,
                "ignoredValues": summary.ignoredValueCount,
                "rejectedValues": summary.rejectedValueCount,
            ],
            details: details)
    }
}
