/// An error that says whether running the job again could succeed.
///
/// The runner retries a failed job (with backoff) only when its error is retryable. Domain
/// errors conform to say so, e.g. a malformed XML document cannot parse on a second try:
///
/// ```swift
/// extension BuoyXMLError: RetryableError {
///     public var isRetryable: Bool { false }
/// }
/// ```
///
/// Errors that do not conform are classified by ``ErrorClassification/isRetryable(_:)``.
public protocol RetryableError: Error {
    /// Whether another attempt could succeed (a busy disk) or not (bad input).
    var isRetryable: Bool { get }
}
