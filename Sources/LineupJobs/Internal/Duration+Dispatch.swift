package import Dispatch

extension Duration {
    /// The duration for `DispatchQueue.asyncAfter`, clamped to what it can hold.
    package var dispatchInterval: DispatchTimeInterval {
        let nanoseconds = self / .nanoseconds(1)
        guard nanoseconds > 0 else { return .nanoseconds(0) }
        // Beyond a year, precision does not matter and Int nanoseconds could overflow.
        return nanoseconds < 3.2e16 ? .nanoseconds(Int(nanoseconds)) : .seconds(365 * 86_400)
    }
}
