import Foundation
import LineupSpool
import Testing

/// The hints of one watcher as a stream a test can read: the handler yields into it (merged, as
/// a consumer merges hints that come while it is busy), and the stream finishes when the
/// handler is released, which the watcher does when its thread stops.
final class HintStream {
    let hints: AsyncStream<Void>
    private var handler: (@Sendable () -> Void)?

    /// Finishes the stream when the handler, its only holder, is released.
    private final class Finisher: Sendable {
        let continuation: AsyncStream<Void>.Continuation
        init(_ continuation: AsyncStream<Void>.Continuation) { self.continuation = continuation }
        deinit { continuation.finish() }
    }

    init() {
        let (hints, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let finisher = Finisher(continuation)
        self.hints = hints
        self.handler = { finisher.continuation.yield() }
    }

    /// The handler, for the watcher: after this call only the watcher holds it.
    func takeHandler() -> @Sendable () -> Void {
        defer { handler = nil }
        return handler!
    }
}

@Suite("Spool watcher")
struct SpoolWatcherTests {
    enum Outcome: Equatable {
        case hint
        case finished
        case timedOut
    }

    /// The next event of the stream, or `.timedOut` when none comes in time. A timeout is a
    /// failure the test reports, not a condition it waits for.
    func next(_ hints: AsyncStream<Void>, within timeout: Duration = .seconds(10)) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                var iterator = hints.makeAsyncIterator()
                return await iterator.next() == nil ? .finished : .hint
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
    }

    @Test("a job renamed into new/ wakes the watcher through inotify")
    func wakesOnEnqueue() async throws {
        try await withSpool { spool in
            // The tick is an hour away: only inotify can deliver the second hint.
            let stream = HintStream()
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600), hint: stream.takeHandler())
            defer { watcher.stop() }
            #expect(watcher.usesInotify)
            #expect(await next(stream.hints) == .hint)  // the start-up hint
            try spool.enqueue(JobFile(kind: "statistics"))
            #expect(await next(stream.hints) == .hint)
            #expect(try spool.claimNext() != nil)
        }
    }

    @Test("a file written directly into new/ wakes the watcher when it is closed")
    func wakesOnCloseWrite() async throws {
        try await withSpool { spool in
            let stream = HintStream()
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600), hint: stream.takeHandler())
            defer { watcher.stop() }
            #expect(await next(stream.hints) == .hint)
            try write(#"{"kind":"statistics"}"#, to: spool.directory(.queued).appending(path: "direct.job.json"))
            #expect(await next(stream.hints) == .hint)
        }
    }

    @Test("without inotify, ticks keep coming")
    func ticksWithoutInotify() async throws {
        try await withSpool { spool in
            let stream = HintStream()
            let watcher = SpoolWatcher(
                spool: spool, rescanInterval: .milliseconds(20), useInotify: false, hint: stream.takeHandler())
            defer { watcher.stop() }
            #expect(!watcher.usesInotify)
            for _ in 0..<3 {
                #expect(await next(stream.hints) == .hint)
            }
        }
    }

    @Test("a directory inotify cannot watch falls back to ticks")
    func fallsBackToTicks() async throws {
        try await withTemporaryDirectory { directory in
            let stream = HintStream()
            let watcher = SpoolWatcher(
                directory: directory.appending(path: "missing"), rescanInterval: .milliseconds(20), hint: stream.takeHandler())
            defer { watcher.stop() }
            #expect(!watcher.usesInotify)
            #expect(await next(stream.hints) == .hint)
            #expect(await next(stream.hints) == .hint)
        }
    }

    @Test("stop ends the hints: the watcher lets go of its handler")
    func stopFinishes() async throws {
        try await withSpool { spool in
            let stream = HintStream()
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .milliseconds(20), hint: stream.takeHandler())
            #expect(await next(stream.hints) == .hint)
            watcher.stop()
            watcher.stop()
            // Ticks come every 20 ms: only a watcher that stopped calling its handler and let go
            // of it finishes the stream.
            var outcome = await next(stream.hints)
            while outcome == .hint { outcome = await next(stream.hints) }
            #expect(outcome == .finished)
            withExtendedLifetime(watcher) {}
        }
    }

    @Test("releasing the watcher stops it")
    func releaseFinishes() async throws {
        try await withSpool { spool in
            let stream = HintStream()
            var watcher: SpoolWatcher? = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600), hint: stream.takeHandler())
            #expect(await next(stream.hints) == .hint)
            watcher = nil
            #expect(watcher == nil)
            #expect(await next(stream.hints) == .finished)
        }
    }
}
