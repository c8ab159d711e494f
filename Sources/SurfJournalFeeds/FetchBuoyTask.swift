public import Foundation
public import LineupJobs
import LineupSpool
public import LineupStore
import Logging
import SurfJournal

/// `fetch-buoy`: downloads an NDBC feed (latest_obs RSS, IOOS SOS observations, or the station
/// catalogue) over HTTP or HTTPS and imports it as `import-buoy` imports a file, through the
/// same ``BuoyDocumentImporter``.
///
/// ```json
/// {"kind": "fetch-buoy", "url": "https://www.ndbc.noaa.gov/data/latest_obs/latest_obs.rss"}
/// ```
///
/// - Only hosts of the daemon's `allowedHosts` (``BuoyFeedPolicy``); a job naming another host
///   fails at once, not retried. Redirects are followed up to a bound, each target checked.
/// - The feed's `ETag` and `Last-Modified` are kept per URL (``FeedValidators``) and sent back:
///   `304 Not Modified` ends the job successfully, importing nothing. They are saved with the
///   import, in the task's context, so a failed import records none.
/// - An error status or an answer that is not XML fails the attempt, naming the URL and the
///   status: retried for `5xx`, `429`, timeouts and failed connections, not for other `4xx`.
///
/// The HTTP part is async (``BuoyFeedFetcher``); it holds no queue while it waits, and a cancel
/// of the job cancels the request.
public final class FetchBuoyTask: AsyncJobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond AsyncJobTask's own (see JobTask); the
    // fetcher is Sendable.

    public struct Parameters: Decodable, Sendable {
        /// The feed's URL, `http` or `https`.
        public let url: String
    }

    public static let kind = "fetch-buoy"

    /// The feed's URL.
    public let url: URL
    private let fetcher: BuoyFeedFetcher

    /// Checks the URL against the fetcher's policy: a host it does not allow fails the job here,
    /// before it runs, and is not retried.
    public init(request: JobRequest, parameters: Parameters, fetcher: BuoyFeedFetcher) throws {
        guard let url = URL(string: parameters.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw JobError(
                .invalidParameters, "field `url` must be an http or https URL with a host; found \(parameters.url)", isRetryable: false)
        }
        guard fetcher.policy.allows(url) else {
            let refusal = BuoyFeedError(
                .hostNotAllowed, url: url, "host \(url.host ?? "") is not allowed (\(fetcher.policy.allowedHostsDescription))")
            throw JobError(.invalidParameters, refusal.description, isRetryable: false, underlying: refusal)
        }
        self.url = url
        self.fetcher = fetcher
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) async throws -> JobOutcome {
        let key = url.absoluteString
        let validators = try await context.perform { () throws -> BuoyFeedValidators? in
            guard let stored = try context.fetch(FetchRequest<FeedValidators>(predicate: \.url == Optional(key), limit: 1)).first
            else { return nil }
            let validators = BuoyFeedValidators(etag: stored.etag, lastModified: stored.lastModified)
            return validators.isEmpty ? nil : validators
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-fetch-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        let response: BuoyFeedResponse
        do {
            response = try await fetcher.fetch(url, validators: validators, into: file, logger: logger)
        } catch let error as BuoyFeedError {
            logger.info(
                "fetch failed",
                metadata: ["job": "\(jobID)", "url": "\(error.url.absoluteString)", "retryable": "\(error.isRetryable)", "error": "\(error)"])
            throw JobError(.jobFailed, error.description, isRetryable: error.isRetryable, underlying: error)
        } catch is CancellationError {
            try checkCancellation()
            throw JobError(.cancelled, "job \(jobID) was cancelled while fetching \(key)")
        }
        switch response {
        case let .notModified(finalURL):
            logger.info("feed unchanged", metadata: ["job": "\(jobID)", "url": "\(key)", "status": "304"])
            var details: [String: JSONValue] = ["url": .string(key), "status": .integer(304), "unchanged": .bool(true)]
            if finalURL != url { details["finalURL"] = .string(finalURL.absoluteString) }
            return JobOutcome(summary: "\(key): unchanged since the last fetch (304 Not Modified); nothing imported", details: details)
        case let .downloaded(download):
            logger.info(
                "feed downloaded",
                metadata: [
                    "job": "\(jobID)", "url": "\(key)", "bytes": "\(download.byteCount)", "redirects": "\(download.redirects)",
                    "etag": "\(download.validators.etag ?? "-")",
                ])
            return try await context.perform { [self] in
                var details: [String: JSONValue] = [
                    "url": .string(key), "status": .integer(200), "bytes": .integer(download.byteCount),
                ]
                if download.finalURL != url { details["finalURL"] = .string(download.finalURL.absoluteString) }
                let outcome = try BuoyDocumentImporter(context: context, task: self).importDocument(
                    at: file, source: key, title: key, details: details)
                try record(download.validators, for: key, in: context)
                return outcome
            }
        }
    }

    /// Keeps the answer's validators for the next fetch, in the context that holds the import:
    /// they reach the store with it, or not at all.
    private func record(_ validators: BuoyFeedValidators, for key: String, in context: ManagedObjectContext) throws {
        let stored = try context.fetch(FetchRequest<FeedValidators>(predicate: \.url == Optional(key), limit: 1)).first
        // An answer without validators replaces older ones: sent again, they could only miss.
        guard stored != nil || !validators.isEmpty else { return }
        let record = stored ?? FeedValidators(context: context)
        record.url = key
        record.etag = validators.etag
        record.lastModified = validators.lastModified
        record.fetchedAt = Date()
    }
}
