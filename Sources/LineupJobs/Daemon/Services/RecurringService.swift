import ServiceLifecycle

/// A background chore of the daemon as a `Service`: `work` runs, then the service sleeps for
/// `pause()` (read anew each time, so that a reload changes it), over and over, until the
/// service group shuts down gracefully or cancels it. Work under way when that happens ends
/// first; only the sleep is cut short.
///
/// The one timer loop of the daemon's background work: the database's lease ticks run in one too.
package struct RecurringService: Service {
    /// For logs and the group's messages.
    package let name: String
    /// Whether `work` runs once at start, before the first pause.
    package let worksAtStart: Bool
    package let pause: @Sendable () -> Duration
    package let work: @Sendable () async -> Void

    package init(
        name: String, worksAtStart: Bool, pause: @escaping @Sendable () -> Duration, work: @escaping @Sendable () async -> Void
    ) {
        self.name = name
        self.worksAtStart = worksAtStart
        self.pause = pause
        self.work = work
    }

    package func run() async {
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
    package var description: String { name }
}
