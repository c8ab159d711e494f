import ServiceLifecycle

/// A background chore of the daemon as a `Service`: `work` runs, then the service sleeps for
/// `pause()` (read anew each time, so that a reload changes it), over and over, until the
/// service group shuts down gracefully or cancels it. Work under way when that happens ends
/// first; only the sleep is cut short.
struct RecurringService: Service {
    /// For logs and the group's messages.
    let name: String
    /// Whether `work` runs once at start, before the first pause.
    let worksAtStart: Bool
    let pause: @Sendable () -> Duration
    let work: @Sendable () async -> Void

    func run() async {
        if worksAtStart {
            await work()
        }
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause()) }
            } catch {
                return
            }
            await work()
        }
    }
}

extension RecurringService: CustomStringConvertible {
    var description: String { name }
}
