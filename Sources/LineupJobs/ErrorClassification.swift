import LineupSpool
import LineupStore

/// Decides whether the runner retries a job that failed with a given error.
public enum ErrorClassification: Sendable {
    /// Whether another attempt could succeed after `error`.
    ///
    /// - ``RetryableError`` (``JobError`` among them): what the error says.
    /// - `SpoolError`: only I/O errors; a malformed file, a missing or invalid field, a bad
    ///   path or a missing file is bad input.
    /// - `StoreError`: SQLite failures, merge conflicts (another writer won a race), and
    ///   transient database errors (`StoreError.isTransient`: the server restarted,
    ///   failed over or dropped the connection); validation and other errors are not retried.
    /// - Anything else is retried: the attempts are bounded, and an unknown error is more
    ///   often transient than not.
    public static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let error as any RetryableError:
            return error.isRetryable
        case let error as SpoolError:
            return error.code == .io
        case let error as StoreError:
            return error.code == .sqlite || error.code == .mergeConflict || error.isTransient
        default:
            return true
        }
    }
}
