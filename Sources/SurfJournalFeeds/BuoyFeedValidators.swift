/// A feed's cache validators, as its server sent them with the answer last imported: sent back
/// (`If-None-Match`, `If-Modified-Since`) so that an unchanged feed answers `304 Not Modified`.
public struct BuoyFeedValidators: Sendable, Hashable {
    /// The `ETag` header, verbatim.
    public var etag: String?
    /// The `Last-Modified` header, verbatim (an HTTP date).
    public var lastModified: String?

    /// Validators with the given headers; both nil means none.
    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether there is anything to send.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
