import Foundation
import LineupSpool
import Testing

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
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600))
            defer { watcher.stop() }
            #expect(watcher.usesInotify)
            #expect(await next(watcher.hints) == .hint)  // the start-up hint
            try spool.enqueue(JobFile(kind: "statistics"))
            #expect(await next(watcher.hints) == .hint)
            #expect(try spool.claimNext() != nil)
        }
    }

    @Test("a file written directly into new/ wakes the watcher when it is closed")
    func wakesOnCloseWrite() async throws {
        try await withSpool { spool in
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600))
            defer { watcher.stop() }
            #expect(await next(watcher.hints) == .hint)
            try write(#"{"kind":"statistics"}"#, to: spool.directory(.queued).appending(path: "direct.job.json"))
            #expect(await next(watcher.hints) == .hint)
        }
    }

    @Test("without inotify, ticks keep coming")
    func ticksWithoutInotify() async throws {
        try await withSpool { spool in
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .milliseconds(20), useInotify: false)
            defer { watcher.stop() }
            #expect(!watcher.usesInotify)
            for _ in 0..<3 {
                #expect(await next(watcher.hints) == .hint)
            }
        }
    }

    @Test("a directory inotify cannot watch falls back to ticks")
    func fallsBackToTicks() async throws {
        try await withTemporaryDirectory { directory in
            let watcher = SpoolWatcher(directory: directory.appending(path: "missing"), rescanInterval: .milliseconds(20))
            defer { watcher.stop() }
            #expect(!watcher.usesInotify)
            #expect(await next(watcher.hints) == .hint)
            #expect(await next(watcher.hints) == .hint)
        }
    }

    @Test("stop finishes the stream")
    func stopFinishes() async throws {
        try await withSpool { spool in
            let watcher = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600))
            #expect(await next(watcher.hints) == .hint)
            watcher.stop()
            watcher.stop()
            #expect(await next(watcher.hints) == .finished)
        }
    }

    @Test("releasing the watcher finishes the stream")
    func releaseFinishes() async throws {
        try await withSpool { spool in
            var watcher: SpoolWatcher? = SpoolWatcher(spool: spool, rescanInterval: .seconds(3600))
            let hints = try #require(watcher?.hints)
            #expect(await next(hints) == .hint)
            watcher = nil
            #expect(watcher == nil)
            #expect(await next(hints) == .finished)
        }
    }
}
