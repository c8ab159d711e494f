import Foundation

/// A claimed job's result report, written into `tmp/` by
/// ``SpoolDirectory/stageResultReport(_:of:)`` and waiting for
/// ``SpoolDirectory/complete(staged:)`` to rename it into `done/` with its job.
public struct StagedReport: Sendable, Hashable {
    /// The job the report belongs to.
    public let job: ClaimedJob
    /// The report's temporary file in `tmp/`.
    let temporaryPath: String
    /// The report's name in `done/`.
    let reportName: String
    /// For a line of a bulk file, the report itself, which goes into the bulk's ledger rather
    /// than into a file of its own.
    var lineReport: Data? = nil
}
