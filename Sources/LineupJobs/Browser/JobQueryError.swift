/// A job browser request that cannot be answered as asked, such as a cursor of another listing:
/// the API answers 400 with its message.
public struct JobQueryError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
