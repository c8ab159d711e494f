/// The daemon's events for one subscriber, in the order they were emitted: what
/// ``JobDaemon/events()`` returns. Read it with `for await event in events`.
///
/// The daemon hands events over in batches (see `EventBroadcaster`), and this sequence takes a
/// whole batch from its stream at a time. An `AsyncStream` of single events would lock its
/// buffer, and possibly resume the reader, once per event: four or so a job, for every
/// subscriber (the metrics and the systemd notifier of `lineupd` are two), which came to an
/// eighth of the daemon's CPU time under a backlog of small jobs.
public struct DaemonEvents: AsyncSequence, Sendable {
    public typealias Element = DaemonEvent
    public typealias Failure = Never

    let batches: AsyncStream<[DaemonEvent]>

    public func makeAsyncIterator() -> Iterator {
        Iterator(batches: batches.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        private var batches: AsyncStream<[DaemonEvent]>.Iterator
        private var batch: [DaemonEvent] = []
        private var position = 0

        init(batches: AsyncStream<[DaemonEvent]>.Iterator) {
            self.batches = batches
        }

        public mutating func next() async -> DaemonEvent? {
            await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> DaemonEvent? {
            while position == batch.count {
                guard let next = await batches.next(isolation: actor) else { return nil }
                batch = next
                position = 0
            }
            defer { position += 1 }
            return batch[position]
        }
    }
}

/// One reader's place in the stream, as `AsyncStream`'s own iterator.
@available(*, unavailable)
extension DaemonEvents.Iterator: Sendable {}
