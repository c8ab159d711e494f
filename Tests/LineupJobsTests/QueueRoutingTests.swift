import Foundation
import LineupJobs
import LineupSpool
import Testing

/// The one routing rule (DESIGN §10): a job runs in the queue it names when the daemon
/// configures it, else in its kind's queue, else in the default queue.
@Suite(.daemonTestTimeLimit)
struct QueueRoutingTests {
    static let routing = QueueRouting([
        "imports": .init(kinds: ["import-buoy", "import-coredata"], concurrency: 1),
        "exports": .init(kinds: ["export-csv"], concurrency: 4),
        "spare": .init(kinds: [], concurrency: 1),
    ])

    @Test func aJobRunsInTheQueueItNamesElseInItsKindsElseInTheDefaultQueue() {
        let routing = Self.routing
        #expect(routing.queue(forJobNamed: nil, kind: "import-buoy") == "imports")
        #expect(routing.queue(forJobNamed: "exports", kind: "import-buoy") == "exports", "the named queue wins over the kind's")
        #expect(routing.queue(forJobNamed: "spare", kind: "statistics") == "spare", "a queue that runs no kind of its own")
        #expect(routing.queue(forJobNamed: nil, kind: "statistics") == nil)
        #expect(routing.queue(forJobNamed: "nowhere", kind: "import-buoy") == "imports", "a queue not configured: the kind's")
        #expect(routing.queue(forJobNamed: "nowhere", kind: "statistics") == nil)
        #expect(routing.queue(forJobNamed: nil, kind: nil) == nil)
        #expect(routing.queue(forJobNamed: "imports", kind: nil) == "imports")
        #expect(routing.ignores(namedQueue: "nowhere") && !routing.ignores(namedQueue: "spare") && !routing.ignores(namedQueue: nil))
        #expect(QueueRouting().queue(forJobNamed: "imports", kind: "import-buoy") == nil, "no queues: the default queue")
    }

    @Test func theConfigurationsRuleIsItsQueues() {
        var configuration = DaemonConfiguration(
            storeURL: URL(filePath: "/tmp/s"), spoolURL: URL(filePath: "/tmp/p"), inputDirectory: URL(filePath: "/tmp/i"),
            outputDirectory: URL(filePath: "/tmp/o"))
        configuration.queues = ["imports": .init(kinds: ["import-buoy"], concurrency: 1)]
        #expect(configuration.routing == QueueRouting(configuration.queues))
        #expect(configuration.routing.queue(forJobNamed: "imports", kind: "statistics") == "imports")
        #expect(configuration.queueName(forKind: "import-buoy") == "imports")
    }

    @Test func theRuleAsJSONNamesEveryQueueAndEachKindsQueue() {
        let object = Self.routing.jsonObject
        #expect(object["queues"] == ["imports": "imports", "exports": "exports", "spare": "spare"])
        #expect(object["kinds"] == ["import-buoy": "imports", "import-coredata": "imports", "export-csv": "exports"])
    }

    @Test func aQueryForAQueueAdmitsTheJobsTheRuleRunsThere() {
        let imports = JobQuery(queue: .named("imports"), routing: Self.routing)
        #expect(imports.filtersOnKind)
        #expect(imports.admits(kind: "import-buoy", namedQueue: nil))
        #expect(imports.admits(kind: "statistics", namedQueue: "imports"))
        #expect(!imports.admits(kind: "import-buoy", namedQueue: "exports"))
        #expect(imports.admits(kind: "import-buoy", namedQueue: "nowhere"))
        #expect(!imports.admits(kind: nil, namedQueue: "imports"), "an unreadable file is in no queue a query asks for")
        let fallback = JobQuery(queue: .defaultQueue, routing: Self.routing)
        #expect(fallback.admits(kind: "statistics", namedQueue: nil))
        #expect(!fallback.admits(kind: "statistics", namedQueue: "spare"))
        #expect(!fallback.admits(kind: "import-buoy", namedQueue: nil))
        let ofKindInQueue = JobQuery(kinds: ["statistics"], queue: .named("spare"), routing: Self.routing)
        #expect(ofKindInQueue.admits(kind: "statistics", namedQueue: "spare"))
        #expect(!ofKindInQueue.admits(kind: "statistics", namedQueue: nil))
        #expect(JobQuery().admits(kind: nil, namedQueue: nil), "no filter: every job")
    }

    @Test func onASpoolAPausedQueueHoldsTheJobsThatNameItWhateverTheirKind() async throws {
        let harness = try DaemonHarness { configuration in
            configuration.queues = ["imports": .init(kinds: ["insert-rows"], concurrency: 1)]
        }
        defer { harness.removeFiles() }
        try harness.spool.pause(.queue("imports"))
        var (events, run) = try await harness.start()
        let held = try harness.enqueue(raw: #"{"kind": "upsert-keyed", "key": "a", "value": 1, "queue": "imports"}"#)
        let other = try harness.enqueue(["kind": "upsert-keyed", "key": "b", "value": 2])
        try await events.finished(other.name)
        try await Task.sleep(for: harness.configuration.rescanInterval * 3)
        #expect(try harness.spool.counts().queued == 1, "the job naming the paused queue stays in new/")
        #expect(try await harness.daemon.resume(.queue("imports")) == true)
        try await events.finished(held.name)
        try await harness.stop(run)
    }
}
