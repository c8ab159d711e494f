package import LineupSpool

/// What the runner reads of a job it holds, whichever storage claimed it: a spool's claimed
/// file (``LineupSpool/ClaimedJob``) or a database's claimed row (LineupPostgres's `ClaimedRow`). Each storage
/// gets back the type it handed out (``JobStorage/Held``), so neither reads the other's.
package protocol HeldJob: Sendable {
    /// The job's name as it was enqueued; several jobs may share it.
    var name: String { get }
    /// What tells this claim apart from every other one the storage made: the key of the
    /// runner's books.
    var claim: String { get }
    /// What messages and failure reports call the job by (`<name>.job.json`, or a bulk file's
    /// name and line).
    var enqueuedFileName: String { get }
    /// How many attempts failed before this claim.
    var failedAttempts: Int { get }
    /// How many times a daemon stopped while running it before this claim.
    var interruptions: Int { get }

    /// Parses the job's file; a job that is not valid throws a ``LineupSpool/SpoolError`` that
    /// names it.
    func decodeJobFile() throws(SpoolError) -> JobFile
}

extension ClaimedJob: HeldJob {}
