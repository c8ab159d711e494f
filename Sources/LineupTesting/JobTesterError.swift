/// Why a ``JobTester`` cannot go on.
public struct JobTesterError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
