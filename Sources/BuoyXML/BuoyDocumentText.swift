/// A text of a document and where it is: the example ``BuoyReadSummary`` keeps of each reason
/// it skipped a record for, so that a report can show what the reader could not read.
///
/// Positions are 1-based and counted in characters, as libxml2 counts them. For an RSS item
/// the position is that of the line of the description that holds the text (the start of
/// its `<strong>`), or of the guid's or title's text. For a catalogue `<station/>` it is the
/// end of its tag. The position of a token inside an SOS `swe:values` block is not tracked
/// (that would cost a look at every byte of the largest files): ``row`` says which row of
/// the block it is, and the position is the end (`>`) of the `swe:values` start tag.
public struct BuoyDocumentText: Hashable, Sendable, CustomStringConvertible {
    /// The longest text kept; a longer one ends with `…`.
    public static let maximumLength = 80

    /// The text as the document writes it (tags removed, white space collapsed), at most
    /// ``maximumLength`` characters.
    public var text: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The 1-based column, when known.
    public var column: Int?
    /// The 1-based row of an SOS `swe:values` block that holds the text; `nil` elsewhere.
    public var row: Int?

    /// Creates a text, shortening it to ``maximumLength`` characters.
    public init(text: String, line: Int? = nil, column: Int? = nil, row: Int? = nil) {
        self.text = text.count > Self.maximumLength ? String(text.prefix(Self.maximumLength - 1)) + "…" : text
        self.line = line
        self.column = column
        self.row = row
    }

    /// `"<text>" at line 12, column 9`, or `"<text>" in row 3 of the swe:values at line 95,
    /// column 13`, leaving out what is unknown.
    public var description: String {
        var result = "\"\(text)\""
        if let row {
            result += " in row \(row) of the swe:values"
        }
        if let line {
            result += " at line \(line)"
            if let column {
                result += ", column \(column)"
            }
        }
        return result
    }
}
