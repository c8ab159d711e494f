/// Stops the fuzzer with `message` when `condition` is false. Unlike `precondition`, whose
/// message an optimized build drops, the message is printed, so a crash report says which
/// property failed.
public func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError(message())
    }
}
