/// The daemon's events for one subscriber, in the order they were emitted: what
/// ``JobDaemon/events()`` returns. Read it with `for await event in events`.
///
/// The daemon hands events over in batches (see `EventBroadcaster`), and this sequence takes a
/// whole batch from its stream at a time. An `AsyncStream` of single events would lock its
/// buffer, and possibly resume the reader, once per event: four or so a job, for every
/// subscriber (the metrics and the systemd notifier of `lineupd` are two), which came to an
/// eighth of the daemon's CPU time under a backlog of small jobs.
public struct DaemonEvents: AsyncSequence, Sendable {
    /// Each element is one event.
    public typealias Element = DaemonEvent
    /// Reading never throws; the sequence just ends when the daemon stops.
    public typealias Failure = Never

    let batches: AsyncStream<[DaemonEvent]>

    /// Makes a reader of the events; use one per `for await` loop.
    public func makeAsyncIterator() -> Iterator {
        Iterator(batches: batches.makeAsyncIterator())
    }

    /// Reads the events one at a time out of the batches the daemon hands over.
    public struct Iterator: AsyncIteratorProtocol {
        private var batches: AsyncStream<[DaemonEvent]>.Iterator
        private var batch: [DaemonEvent] = []
        private var position = 0

        init(batches: AsyncStream<[DaemonEvent]>.Iterator) {
            self.batches = batches
        }

        /// The next event, waiting for one if none is buffered; nil once the daemon has stopped.
        public mutating func next() async -> DaemonEvent? {
            await next(isolation: nil)
        }

        /// The next event, waiting on `actor`'s executor for one if none is buffered; nil once the
        /// daemon has stopped.
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
