// A service of your own that records surf sessions over HTTP and, in the same save, enqueues the
// statistics job that summarises them: the job exists exactly when the session is on disk.
//
//     swift run surf-sessions 8080 &
//     curl -X POST localhost:8080/sessions -d '{"date":"2026-11-20T07:30:00Z","location":"Ocean Beach","rating":4}'
//     curl localhost:8080/statistics
//
// It runs its own daemon (the surf journal's job kinds) beside its HTTP server, in one
// ServiceGroup; SIGTERM stops both.
import Foundation
import Hummingbird
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal

/// A surf session as the app's clients post it.
struct PostedSession: Decodable {
    let date: String
    let location: String
    let rating: Int
    let height: String?
}

@main enum SurfSessions {
    static func main() async throws {
        let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var configuration = DaemonConfiguration(
            storeURL: here.appending(path: "journal.sqlite"), spoolURL: here.appending(path: "spool"), inputDirectory: here,
            outputDirectory: here)
        // A posted session is on disk within a second, and with it its statistics job.
        configuration.flushInterval = .seconds(1)
        let logger = Logger(label: "surf-sessions")
        let daemon = JobDaemon(
            configuration: configuration, registry: SurfJournalJobs.registry, model: SurfJournalModel.model, logger: logger)

        let router = Router()
        router.post("sessions") { request, context -> Response in
            guard let container = daemon.container else { return Response(status: .serviceUnavailable) }
            let posted = try await request.decode(as: PostedSession.self, context: context)
            guard let date = try? Date(posted.date, strategy: .iso8601), (1...5).contains(posted.rating) else {
                throw HTTPError(.badRequest, message: "date must be ISO 8601 and rating 1 to 5")
            }
            let session = container.newTaskContext(name: "posted session")
            try await session.perform {
                let entry = JournalEntry(context: session)
                entry.date = date
                entry.location = posted.location
                entry.rating = posted.rating
                entry.height = posted.height
                // In the same save as the entry: the job is written with it, or not at all.
                try session.enqueue(JobFile(kind: StatisticsTask.kind, parameters: ["output": "statistics.json"], options: JobOptions()))
                try session.save()
            }
            return Response(status: .created)
        }
        router.get("statistics") { _, _ -> Response in
            guard let statistics = try? Data(contentsOf: here.appending(path: "statistics.json")) else {
                return Response(status: .notFound)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: statistics)))
        }
        let server = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "surf-sessions"),
            onServerRunning: { channel in
                logger.info("HTTP endpoint listening", metadata: ["address": "127.0.0.1:\(channel.localAddress?.port ?? port)"])
            },
            logger: logger)
        try await daemon.runWithSignalHandling(alongside: [server])
    }
}
