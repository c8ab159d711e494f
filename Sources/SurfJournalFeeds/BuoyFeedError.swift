public import Foundation
public import LineupJobs

/// Why a feed could not be fetched; its ``description`` names the URL, and the status where
/// there was one.
///
/// ``isRetryable`` says whether the runner should try again: a timeout, a connection that
/// failed, a `5xx` or a `429 Too Many Requests` may pass; a host the configuration does not
/// allow, another `4xx`, a body over the limit or an answer that is not XML will not.
public struct BuoyFeedError: Error, Sendable, CustomStringConvertible, RetryableError {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case hostNotAllowed, redirectRefused, httpStatus, notXML, tooLarge, timedOut, connectionFailed, storageFailed
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The URL's host (or a redirect target's) is not one the configuration allows, or its
        /// scheme is not `http` or `https`. Not retryable.
        public static let hostNotAllowed = Code(.hostNotAllowed)
        /// Too many redirects, a redirect from `https` to `http`, or one without a usable
        /// `Location`. Not retryable.
        public static let redirectRefused = Code(.redirectRefused)
        /// The server answered an error status (``BuoyFeedError/status``). Retryable for `5xx`
        /// and `429`.
        public static let httpStatus = Code(.httpStatus)
        /// The answer is not XML (its `Content-Type`, or its first bytes, say so). Not retryable.
        public static let notXML = Code(.notXML)
        /// The body is larger than the policy's limit. Not retryable.
        public static let tooLarge = Code(.tooLarge)
        /// The fetch did not finish before its deadline. Retryable.
        public static let timedOut = Code(.timedOut)
        /// The connection could not be made or broke (DNS, refused, reset, TLS). Retryable.
        public static let connectionFailed = Code(.connectionFailed)
        /// The body could not be written to its temporary file. Retryable.
        public static let storageFailed = Code(.storageFailed)

        public var description: String {
            switch value {
            case .hostNotAllowed: "host not allowed"
            case .redirectRefused: "redirect refused"
            case .httpStatus: "HTTP error status"
            case .notXML: "not XML"
            case .tooLarge: "too large"
            case .timedOut: "timed out"
            case .connectionFailed: "connection failed"
            case .storageFailed: "storage failed"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The URL the failing request asked for (after redirects: the one that failed).
    public var url: URL
    /// The HTTP status of the answer, when there was one.
    public var status: Int?
    /// What happened, in words (without the URL, which ``description`` adds).
    public var message: String
    /// The error of the HTTP client, for a connection that failed.
    public var underlying: (any Error)?

    /// Makes an error.
    public init(_ code: Code, url: URL, status: Int? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.url = url
        self.status = status
        self.message = message
        self.underlying = underlying
    }

    public var isRetryable: Bool {
        switch code {
        case .timedOut, .connectionFailed, .storageFailed: true
        case .httpStatus: status.map { $0 >= 500 || $0 == 429 } ?? false
        default: false
        }
    }

    /// `"<url>: HTTP <status>: <message>"`, without the status when there was none.
    public var description: String {
        "\(url.absoluteString): " + (status.map { "HTTP \($0): " } ?? "") + message
    }
}
