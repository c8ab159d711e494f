import Foundation
import LineupStore
import Logging
import Synchronization
import Testing

/// Collects log records in memory.
final class RecordingLogHandlerStore: Sendable {
    let records = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
}

struct RecordingLogHandler: LogHandler {
    let store: RecordingLogHandlerStore
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.records.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
    }
}

@Suite struct SlowWaitTests {
    @Test func aLongWaitForAnotherContextsQueueIsReportedNamingBothContexts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lineup-slow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = RecordingLogHandlerStore()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(store: records) }
        let container = try PersistentContainer(url: directory.appendingPathComponent("s.sqlite"), model: testModel, logger: logger)
        defer { try? container.close() }
        let main = container.mainContext
        main.slowWaitThreshold = .milliseconds(50)
        let child = container.newTaskContext(name: "impatient-child")

        let busy = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        main.perform {
            busy.signal()
            release.wait()  // keeps the main context's queue busy
        }
        busy.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { release.signal() }
        child.performAndWait {
            main.performAndWait {}  // waits ~200 ms for the main context's queue
        }
        let warnings = records.records.withLock { $0.filter { $0.0 == .warning } }
        #expect(warnings.count == 1)
        #expect(warnings.first?.2["waiting"] == "impatient-child")
        #expect(warnings.first?.2["context"] == "main")

        // A wait under the threshold is not reported.
        child.performAndWait { main.performAndWait {} }
        #expect(records.records.withLock { $0.filter { $0.0 == .warning }.count } == 1)
    }
}
