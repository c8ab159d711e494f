/// What every open `GET /api/events` stream sends, made once for all of them: one producer
/// computes the status once a tick and forwards each of the daemon's events, and each stream
/// only writes the frames it is handed. Ten open pages cost one status a second, not ten.
///
/// The status is computed only while a stream is open. A stream that opens gets the latest
/// status at once (or the first one, computed as it opens, when none was open), then every
/// status and event, until the daemon stops: then every stream ends, and a stream opened
/// after that ends at once.
actor DashboardFeed {
    /// A frame as the stream writes it: `event: …`, `data: …` and a blank line.
    typealias Frame = String

    private let statusInterval: Duration
    private let statusFrame: @Sendable () async -> Frame?
    private var subscribers: [Int: AsyncStream<Frame>.Continuation] = [:]
    private var nextSubscriberID = 0
    /// The status of the tick under way, for a stream that opens between two ticks; nil while
    /// no stream is open, when it would be stale.
    private var latestStatus: Frame?
    private var finished = false
    /// Rouses the status producer when a stream opens; it waits on this while none is open.
    private let wakeups: AsyncStream<Void>
    private let wakeupsContinuation: AsyncStream<Void>.Continuation
    /// How many statuses were computed: one a tick, however many streams are open.
    private(set) var statusComputations = 0
    /// How many streams are open (a stream whose client went is forgotten soon after).
    var openStreams: Int { subscribers.count }

    /// How many frames a stream keeps for a client that reads slower than they come; past that
    /// the oldest are dropped (a status is soon followed by a newer one anyway).
    static let bufferedFrames = 256

    /// - Parameter statusFrame: the `status` frame of now, or nil when there is none to send
    ///   (the spool cannot be read).
    init(statusInterval: Duration = .seconds(1), statusFrame: @escaping @Sendable () async -> Frame?) {
        self.statusInterval = statusInterval
        self.statusFrame = statusFrame
        (wakeups, wakeupsContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The frames for one client, until the daemon stops or the client goes.
    func subscribe() -> AsyncStream<Frame> {
        let (frames, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(Self.bufferedFrames))
        guard !finished else {
            continuation.finish()
            return frames
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[id] = continuation
        // Called synchronously, from whatever thread ended the stream (the response body that
        // dropped it when the client went): the actor is reached through a task.
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        if let latestStatus {
            continuation.yield(latestStatus)
        }
        wakeupsContinuation.yield()
        return frames
    }

    /// Feeds the streams until `events` ends (the daemon stopped) or the calling task is
    /// cancelled (the endpoint stops); then ends every stream.
    ///
    /// - Parameter frame: the frame of an event.
    func run<Events: AsyncSequence & Sendable>(events: Events, frame: @escaping @Sendable (Events.Element) -> Frame) async
    where Events.Element: Sendable, Events.Failure == Never {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    await self.broadcast(event, as: frame)
                }
            }
            group.addTask { await self.produceStatus() }
            await group.next()
            group.cancelAll()
        }
        finish()
    }

    /// A status each tick while a stream is open; asleep on `wakeups` while none is.
    private func produceStatus() async {
        for await _ in wakeups {
            while !subscribers.isEmpty, !Task.isCancelled {
                statusComputations += 1
                // The actor is free while it is computed: a stream that opens meanwhile is among
                // the subscribers by the time it returns, and gets it too.
                if let status = await statusFrame() {
                    latestStatus = status
                    for subscriber in subscribers.values {
                        subscriber.yield(status)
                    }
                }
                try? await Task.sleep(for: statusInterval)
            }
            latestStatus = nil
        }
    }

    private func broadcast<Event: Sendable>(_ event: Event, as frame: @Sendable (Event) -> Frame) {
        guard !subscribers.isEmpty else { return }
        let text = frame(event)
        for subscriber in subscribers.values {
            subscriber.yield(text)
        }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    private func finish() {
        finished = true
        for subscriber in subscribers.values {
            subscriber.finish()
        }
        subscribers = [:]
        wakeupsContinuation.finish()
    }
}
