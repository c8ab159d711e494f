public import Foundation

/// What a fetch of a feed got.
public enum BuoyFeedResponse: Sendable, Hashable {
    /// `304 Not Modified`: the feed is what the validators describe; nothing was downloaded.
    case notModified(finalURL: URL)
    /// `200 OK`: the body is in the file the fetch was given.
    case downloaded(Download)

    /// A body written to its file.
    public struct Download: Sendable, Hashable {
        /// The URL that answered, after any redirect.
        public var finalURL: URL
        /// The body's size in bytes.
        public var byteCount: Int
        /// The answer's `ETag`, `Last-Modified`: what the next fetch sends back.
        public var validators: BuoyFeedValidators
        /// The answer's `Content-Type`, if it had one.
        public var contentType: String?
        /// How many redirects led to it.
        public var redirects: Int
    }
}
