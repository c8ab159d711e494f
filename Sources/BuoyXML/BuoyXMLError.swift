/// An error of the buoy XML reader: a file that cannot be read, a document that is not
/// well-formed XML, a well-formed document of a format the reader does not know, a document
/// of a known format that holds nothing the reader can deliver, or a document that exceeds a
/// ``BuoyXMLLimits`` bound.
///
/// The ``description`` always names the file and, when known, the line and column, so that it
/// can be written as-is into a log line or a job failure report. Messages come from libxml2
/// (`xmlError.message`) for malformed documents; they name elements and entities, never
/// observation values.
public struct BuoyXMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in a form a program can switch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unreadableFile
            case malformedDocument
            case unsupportedFormat
            case nothingReadable
            case limitExceeded
            case externalEntity
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The file cannot be opened or read (missing, a directory, no permission, not a
        /// `file:` URL); ``BuoyXMLError/systemErrorNumber`` holds `errno` when a system call
        /// failed.
        public static let unreadableFile = Code(.unreadableFile)
        /// The document is not well-formed XML: a syntax error, a truncated document, an empty
        /// file, bytes that are not valid in its encoding, an entity expansion beyond libxml2's
        /// bounds (billion laughs). ``BuoyXMLError/libxml2Code`` holds the `xmlParserErrors`
        /// value.
        public static let malformedDocument = Code(.malformedDocument)
        /// The document is well-formed but not one of the formats of ``BuoyXMLFormat``: its
        /// root element is none of theirs, or it is an O&M `ObservationCollection` whose
        /// members are not IOOS SOS observations (no `swe:DataStream` or `swe:DataArray`
        /// result). The message names the root element and its namespace, and what was found.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The document is of a known format but holds no observation (RSS, SOS) or station
        /// (catalogue) the reader can deliver: no item or row, none with a readable time or
        /// station, or only properties the model does not hold. The message says what was
        /// found; ``BuoyXMLError/summary`` holds the counts.
        public static let nothingReadable = Code(.nothingReadable)
        /// A text, a token or a field list is larger than ``BuoyXMLLimits`` allows.
        public static let limitExceeded = Code(.limitExceeded)
        /// The document declares an external entity (`<!ENTITY x SYSTEM "...">`). Such a
        /// document is refused rather than read without it: its content was never read.
        public static let externalEntity = Code(.externalEntity)

        public var description: String {
            switch value {
            case .unreadableFile: "unreadable file"
            case .malformedDocument: "malformed document"
            case .unsupportedFormat: "unsupported format"
            case .nothingReadable: "nothing readable"
            case .limitExceeded: "limit exceeded"
            case .externalEntity: "external entity"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The path of the file involved.
    public var file: String
    /// The 1-based line of the document where the problem was found, when known: libxml2's
    /// position for a malformed document (the end of the file for one that ends too early);
    /// for a limit exceeded inside a long text, the position libxml2's parser had reached,
    /// which may be past the offending token (up to the end of the text read so far).
    public var line: Int?
    /// The 1-based column of the document where the problem was found, when known.
    public var column: Int?
    /// A sentence that explains the problem (without the position, which ``description`` adds).
    public var message: String
    /// The libxml2 error number (`xmlParserErrors`) of a ``Code/malformedDocument`` error.
    public var libxml2Code: Int?
    /// `errno` of the failed system call of a ``Code/unreadableFile`` error.
    public var systemErrorNumber: Int32?
    /// What the read found, for a ``Code/nothingReadable`` error.
    public var summary: BuoyReadSummary?

    /// Creates an error.
    public init(
        code: Code,
        file: String,
        line: Int? = nil,
        column: Int? = nil,
        message: String,
        libxml2Code: Int? = nil,
        systemErrorNumber: Int32? = nil,
        summary: BuoyReadSummary? = nil
    ) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.libxml2Code = libxml2Code
        self.systemErrorNumber = systemErrorNumber
        self.summary = summary
    }

    /// `"<file>:<line>:<column>: <message>"`, leaving out the position parts that are unknown.
    public var description: String {
        var position = file
        if let line {
            position += ":\(line)"
            if let column {
                position += ":\(column)"
            }
        }
        return "\(position): \(message)"
    }
}
