import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging
import Testing

@testable import LineupJobs

/// The runner's own threads: one for each attempt under way, made at once, reused, ended with
/// the runner; an async job holds none while it awaits.
@Suite(.daemonTestTimeLimit) struct AttemptThreadsTests {
    @Test func blockingWorkGetsAThreadEachAtOnce() async throws {
        let threads = AttemptThreads(named: "test.attempt")
        defer { threads.stop() }
        let count = 16
        let running = Locked(0)
        let release = Latch()
        for _ in 0..<count {
            threads.run {
                running.withLock { $0 += 1 }
                _ = release.wait(timeout: 60)
            }
        }
        // All sixteen block at once: none waits for another's thread.
        #expect(await eventually { running.withLock { $0 } == count })
        #expect(threads.threads == count)
        release.open()
        #expect(await eventually { threads.busyThreads == 0 })
    }

    @Test func anIdleThreadIsReusedRatherThanANewOneMade() async throws {
        let threads = AttemptThreads(named: "test.attempt")
        defer { threads.stop() }
        let ranOn = Locked<[ObjectIdentifier]>([])
        for _ in 0..<5 {
            threads.run { ranOn.withLock { $0.append(ObjectIdentifier(Thread.current)) } }
            #expect(await eventually { threads.busyThreads == 0 })
        }
        #expect(threads.threads == 1)
        #expect(Set(ranOn.withLock { $0 }).count == 1)
    }

    @Test func stopEndsTheThreadsAndWorkHandedOverLaterStillRuns() async throws {
        let threads = AttemptThreads(named: "test.attempt")
        let releaseFirst = Latch()
        let release = Latch()
        let finishedBlocking = Latch()
        threads.run { _ = releaseFirst.wait(timeout: 60) }
        threads.run {
            _ = release.wait(timeout: 60)
            finishedBlocking.open()
        }
        releaseFirst.open()
        #expect(await eventually { threads.threads == 2 && threads.busyThreads == 1 })
        threads.stop()
        // The idle one ends now; the busy one when its work returns.
        #expect(threads.threads == 1)
        release.open()
        #expect(await finishedBlocking.opened())
        #expect(await eventually { threads.threads == 0 })
        let late = Latch()
        threads.run { late.open() }
        #expect(await late.opened())
        #expect(await eventually { threads.threads == 0 })
    }

    /// Async jobs that await hold none of the runner's threads: the attempt's thread starts the
    /// work and goes back; the work comes back to a thread only to be kept. The jobs wait at a
    /// rendezvous that the test completes, once it has seen every attempt thread idle.
    @Test func awaitingAsyncJobsHoldNoAttemptThread() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lineup-attempt-threads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try PersistentContainer(
            url: directory.appending(path: "store.sqlite"), model: testModel, logger: Logger(label: "test"))
        defer { try? container.close() }
        let threads = AttemptThreads(named: "test.attempt")
        defer { threads.stop() }
        let jobs = 6
        let rendezvous = Rendezvous(expected: jobs + 1)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = jobs
        let tasks = try (0..<jobs).map { index in
            let request = JobRequest(
                jobID: "job-\(index)", name: "job-\(index)", file: try JobFile(kind: "async-rendezvous"),
                jobFilePath: "/spool/active/job-\(index).job.json",
                paths: PathPolicy(inputDirectory: directory, outputDirectory: directory), container: container,
                logger: Logger(label: "test"))
            let task = AsyncRendezvousTask(request: request, rendezvous: rendezvous)
            task.runOnAttemptThreads(threads)
            return task
        }
        for task in tasks {
            queue.addOperation(task)
        }
        #expect(await eventually { await rendezvous.arrived == jobs })
        #expect(await eventually { threads.busyThreads == 0 }, "every awaiting job holds an attempt thread")
        await rendezvous.arrive()
        #expect(await eventually { tasks.allSatisfy(\.isFinished) })
        for task in tasks {
            #expect(task.result?.outcome?.summary == "met", "\(String(describing: task.result))")
        }
        let rows = try container.mainContext.performAndWait { try container.mainContext.count(for: FetchRequest<TestRow>()) }
        #expect(rows == jobs)
    }
}

/// Whether `condition` holds within ten seconds, looked at every 10 ms.
private func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
