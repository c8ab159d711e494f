import Synchronization

/// A value shared between the benchmark's threads and tasks: a `Mutex` in a class, so that
/// escaping closures can capture it (a `Mutex` itself cannot be copied into them).
final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
