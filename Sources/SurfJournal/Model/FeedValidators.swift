public import Foundation
public import LineupStore

/// What a feed's server said about the version of the feed that `fetch-buoy` last imported:
/// its `ETag` and `Last-Modified`, sent back as `If-None-Match` and `If-Modified-Since` so that an
/// unchanged feed answers `304 Not Modified` and nothing is downloaded or imported again.
///
/// One per feed URL, as the job names it (not the URL a redirect ended at: the job's URL is what
/// the next fetch asks for). It is saved with the import it describes, in the same context, so a
/// failed import records nothing and the next fetch downloads the feed again.
public final class FeedValidators: ManagedObject {
    /// The feed's URL, as the job file gives it; unique.
    @Attribute("url") public var url: String?
    /// The `ETag` header of the imported answer, verbatim (quotes and `W/` included).
    @Attribute("etag") public var etag: String?
    /// The `Last-Modified` header of the imported answer, verbatim (an HTTP date).
    @Attribute("lastModified") public var lastModified: String?
    /// When the imported answer was fetched.
    @Attribute("fetchedAt") public var fetchedAt: Date?

    public override class var uniquenessConstraints: [[String]] { [["url"]] }
}
