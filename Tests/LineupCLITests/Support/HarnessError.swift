/// A failure of the test harness itself (a timeout, a missing binary), with what it was
/// waiting for and what the daemon logged.
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
