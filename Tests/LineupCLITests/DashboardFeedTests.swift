import Foundation
import Testing

@testable import LineupServer

extension DaemonTests.DashboardTests {
    /// The producer behind `GET /api/events`, in this process: how often it computes the status
    /// whatever the number of open streams, and when the streams end.
    @Suite("Dashboard feed")
    struct FeedTests {
        /// Counts the statuses computed, as the daemon would count its `status()` calls.
        actor StatusCounter {
            private(set) var calls = 0

            func frame() -> String {
                calls += 1
                return "event: status\ndata: \(calls)\n\n"
            }
        }

        /// A feed that computes a status every `interval`, running until its events end.
        static func runningFeed(interval: Duration) -> (DashboardFeed, StatusCounter, AsyncStream<String>.Continuation, Task<Void, Never>) {
            let counter = StatusCounter()
            let feed = DashboardFeed(statusInterval: interval) { await counter.frame() }
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            let running = Task { await feed.run(events: events) { $0 } }
            return (feed, counter, continuation, running)
        }

        /// The first `count` frames of `stream`; fewer when it ends first.
        static func first(_ count: Int, of stream: AsyncStream<String>) async -> [String] {
            var frames: [String] = []
            for await frame in stream {
                frames.append(frame)
                if frames.count == count { break }
            }
            return frames
        }

        @Test("five open streams cost one status a tick, and each gets every one of them")
        func oneStatusPerTickForAllStreams() async throws {
            let (feed, counter, events, running) = Self.runningFeed(interval: .milliseconds(100))
            var streams: [AsyncStream<String>] = []
            for _ in 0..<5 {
                streams.append(await feed.subscribe())
            }
            let ticks = 4
            let seen = await withTaskGroup(of: [String].self) { group in
                for stream in streams {
                    group.addTask { await Self.first(ticks, of: stream) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            // A producer for each stream would have numbered them apart (1, 6, 11, … for one).
            let expected = (1...ticks).map { "event: status\ndata: \($0)\n\n" }
            #expect(seen == Array(repeating: expected, count: streams.count), "every stream got the same statuses, in order")
            let computed = await feed.statusComputations
            // Five times four with one each; a tick or two more may have begun since the last read.
            #expect((ticks...ticks + 2).contains(computed), "\(computed) statuses for \(ticks) ticks")
            #expect(await counter.calls == computed)
            events.finish()
            await running.value
        }

        @Test("no status is computed while no stream is open, nor once the last one has gone")
        func noStatusWithoutAStream() async throws {
            let (feed, counter, events, running) = Self.runningFeed(interval: .milliseconds(10))
            try await Task.sleep(for: .milliseconds(100))
            #expect(await counter.calls == 0)

            var stream: AsyncStream<String>? = await feed.subscribe()
            #expect(await Self.first(2, of: try #require(stream)).count == 2)
            // The client goes: its stream is dropped, as the response body drops it.
            stream = nil
            let deadline = ContinuousClock.now + .seconds(10)
            while await feed.openStreams > 0 {
                try #require(ContinuousClock.now < deadline, "the dropped stream is forgotten")
                try await Task.sleep(for: .milliseconds(5))
            }
            let computedWhileOpen = await counter.calls
            try await Task.sleep(for: .milliseconds(100))
            #expect(await counter.calls <= computedWhileOpen + 1, "at most the tick under way as it went")
            events.finish()
            await running.value
        }

        @Test("a stream that opens between two ticks gets the latest status at once, not a new one")
        func latestStatusAtOnce() async throws {
            let (feed, counter, events, running) = Self.runningFeed(interval: .seconds(3_600))
            let first = await feed.subscribe()
            #expect(await Self.first(1, of: first) == ["event: status\ndata: 1\n\n"])
            let second = await feed.subscribe()
            #expect(await Self.first(1, of: second) == ["event: status\ndata: 1\n\n"])
            #expect(await counter.calls == 1)
            events.finish()
            await running.value
        }

        @Test("the daemon's events go to every stream; when they end, every stream ends, and later ones at once")
        func eventsAndTheEnd() async throws {
            let (feed, _, events, running) = Self.runningFeed(interval: .seconds(3_600))
            let streams = [await feed.subscribe(), await feed.subscribe()]
            for stream in streams {
                #expect(await Self.first(1, of: stream).count == 1, "the first status")
            }
            events.yield("event: jobStarted\n\n")
            events.yield("event: stopped\n\n")
            events.finish()
            await running.value
            for stream in streams {
                #expect(await Self.first(10, of: stream) == ["event: jobStarted\n\n", "event: stopped\n\n"], "then the end")
            }
            #expect(await Self.first(10, of: await feed.subscribe()).isEmpty)
        }
    }
}
