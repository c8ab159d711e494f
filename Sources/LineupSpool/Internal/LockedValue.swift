import Foundation

/// A value guarded by a lock.
///
/// `@unchecked Sendable` is safe because `value` is only read or written inside
/// `withLock`, which holds `lock` for the whole access.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
