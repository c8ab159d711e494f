public import Foundation
public import LineupJobs
public import LineupStore
import Logging

/// `prune-observations`: a retention job. Deletes the buoy observations older than a cutoff, of
/// every station or of one, with a batch delete: one SQL statement that loads no objects, however
/// many years of rows it removes.
///
/// ```json
/// {"kind": "prune-observations", "before": "2024-01-01T00:00:00Z", "station": "46012"}
/// {"kind": "prune-observations", "olderThanDays": 365}
/// ```
///
/// The delete is in the store when the task returns (a batch request is its own transaction), and
/// the stack's contexts have dropped what they held of the deleted rows, so that no later flush
/// pushes a change over them. Running it again deletes nothing more: an interrupted prune is
/// safe to retry. Like any batch request it reads the store: observations that an import saved
/// but the daemon has not flushed yet are left for the next run.
public final class PruneObservationsTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        /// An ISO 8601 date and time: observations taken before it are deleted.
        public let before: String?
        /// Or: observations taken more than this many days before the job runs are deleted.
        public let olderThanDays: Int?
        /// Only this station's observations (its NDBC station ID); every station's when absent.
        public let station: String?
    }

    /// When the retention window ends.
    public enum Cutoff: Sendable, Equatable {
        case date(Date)
        case daysBeforeRun(Int)
    }

    public static let kind = "prune-observations"

    public let cutoff: Cutoff
    public let stationID: String?

    public init(request: JobRequest, parameters: Parameters) throws {
        switch (parameters.before, parameters.olderThanDays) {
        case let (before?, nil):
            guard let date = try? Date(before, strategy: .iso8601) else {
                throw JobError(
                    .invalidParameters, "field `before` is not an ISO 8601 date and time: \(before)", isRetryable: false)
            }
            cutoff = .date(date)
        case let (nil, days?):
            guard days > 0 else {
                throw JobError(.invalidParameters, "field `olderThanDays` must be positive, not \(days)", isRetryable: false)
            }
            cutoff = .daysBeforeRun(days)
        case (nil, nil), (.some, .some):
            throw JobError(
                .invalidParameters, "give exactly one of the fields `before` and `olderThanDays`", isRetryable: false)
        }
        if let station = parameters.station, station.isEmpty {
            throw JobError(.invalidParameters, "field `station` is empty", isRetryable: false)
        }
        stationID = parameters.station
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let cutoffDate: Date
        switch cutoff {
        case let .date(date): cutoffDate = date
        case let .daysBeforeRun(days): cutoffDate = Date().addingTimeInterval(-Double(days) * 86_400)
        }
        var predicate: FetchPredicate<BuoyObservation> = \.time < cutoffDate
        if let stationID {
            let stations = try context.fetch(FetchRequest<BuoyStation>(predicate: \.stationID == stationID, limit: 1))
            guard let station = stations.first else {
                // A misspelt station would otherwise prune nothing and report success.
                throw JobError(.jobFailed, "no station \(stationID) in the journal", isRetryable: false)
            }
            predicate = predicate && .refers(\.station, to: station.objectID)
        }
        let result = try context.execute(BatchDeleteRequest(predicate: predicate))
        let scope = stationID.map { "of station \($0) " } ?? ""
        logger.info(
            "pruned observations",
            metadata: ["deleted": "\(result.count)", "before": "\(cutoffDate.ISO8601Format())", "station": "\(stationID ?? "all")"])
        return JobOutcome(
            summary: "deleted \(result.count) observations \(scope)taken before \(cutoffDate.ISO8601Format())",
            counts: ["deleted": result.count])
    }
}
