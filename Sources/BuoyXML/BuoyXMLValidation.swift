/// The result of ``BuoyXMLReader/validate(contentsOf:)``: a well-formed document's size.
public struct BuoyXMLValidation: Hashable, Sendable {
    /// Bytes of the file.
    public var byteCount: Int
    /// Elements in the document (the root included).
    public var elementCount: Int
    /// The format of the document, or `nil` when its root element is none of ``BuoyXMLFormat``
    /// (validation checks well-formedness only; reading such a document fails).
    public var format: BuoyXMLFormat?

    /// Creates a validation result.
    public init(byteCount: Int, elementCount: Int, format: BuoyXMLFormat?) {
        self.byteCount = byteCount
        self.elementCount = elementCount
        self.format = format
    }
}
