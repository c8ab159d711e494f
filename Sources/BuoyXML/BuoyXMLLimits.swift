/// Bounds on what the reader buffers, so that memory stays constant whatever the document.
///
/// The reader streams: it never holds a whole document, a whole `swe:values` block or a whole
/// catalogue. The only things it buffers are one text at a time (one SOS token, one constant
/// `swe:value`, one RSS item description, one attribute value) and the field list of one SOS
/// data record. libxml2 bounds the rest itself (element depth, name lengths, entity expansion:
/// the reader never sets `XML_PARSE_HUGE`).
public struct BuoyXMLLimits: Hashable, Sendable {
    /// The longest text the reader buffers, in bytes (UTF-8).
    public var maximumTextBytes: Int
    /// The most fields (columns) one SOS data record may declare.
    public var maximumFields: Int
    /// How many bytes are read from the file and handed to libxml2 at a time.
    public var chunkSize: Int

    /// Creates limits.
    public init(maximumTextBytes: Int = 1 << 20, maximumFields: Int = 512, chunkSize: Int = 64 * 1024) {
        precondition(maximumTextBytes > 0 && maximumFields > 0 && chunkSize > 0, "limits must be positive")
        self.maximumTextBytes = maximumTextBytes
        self.maximumFields = maximumFields
        self.chunkSize = chunkSize
    }

    /// 1 MiB of text, 512 fields, 64 KiB chunks.
    public static let `default` = BuoyXMLLimits()
}
