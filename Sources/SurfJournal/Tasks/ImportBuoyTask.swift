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
public final class ImportBuoyTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        public let input: String
    }

    public static let kind = "import-buoy"

    public let input: URL

    public init(request: JobRequest, parameters: Parameters) throws {
        self.input = try request.resolveInput(parameters.input)
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        try BuoyDocumentImporter(context: context, task: self).importDocument(
            at: input, source: input.path, title: input.lastPathComponent, details: ["input": .string(input.path)])
    }
}
