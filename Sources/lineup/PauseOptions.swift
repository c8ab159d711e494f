import ArgumentParser
import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool

/// What `lineup pause` and `lineup resume` take: a kind or a queue, and where its jobs are.
struct PauseOptions: ParsableArguments {
    @Option(help: "Pause or resume the jobs of this kind.")
    var kind: String?
    @Option(help: "Pause or resume the jobs of this named queue (lineupd's `queues`).")
    var queue: String?
    @Option(help: "The spool directory.")
    var spool: String = "spool"
    @Option(help: "Act on this PostgreSQL database's jobs (lineupd --database) instead of a spool's.")
    var database: String?

    func validate() throws {
        guard (kind == nil) != (queue == nil) else {
            throw ValidationError("give --kind or --queue, one of them")
        }
        if kind?.isEmpty == true || queue?.isEmpty == true {
            throw ValidationError("a kind or a queue needs a name")
        }
    }

    var scope: JobScope {
        kind.map(JobScope.kind) ?? .queue(queue ?? "")
    }

    /// Pauses (`paused` true) or resumes the scope; prints what it did and what is paused now.
    func apply(paused: Bool) throws {
        let changed: Bool
        let now: [JobScope]
        let location: String
        if let database {
            let jobs = try JobDatabase(url: try DatabaseOption.url(database), logger: DatabaseOption.logger)
            defer { jobs.close() }
            changed = try (paused ? jobs.pause(scope) : jobs.resume(scope))
            now = try jobs.pausedScopes()
            location = jobs.location
        } else {
            let directory = try SpoolDirectory(root: URL(fileURLWithPath: spool))
            changed = try (paused ? directory.pause(scope) : directory.resume(scope))
            now = try directory.pausedScopes()
            location = directory.root.path
        }
        switch (paused, changed) {
        case (true, true): print("\(scope): paused in \(location); its jobs stay queued until `lineup resume`")
        case (true, false): print("\(scope): paused already in \(location)")
        case (false, true): print("\(scope): resumed in \(location)")
        case (false, false): print("\(scope): was not paused in \(location)")
        }
        print("paused: \(now.isEmpty ? "nothing" : now.map(\.description).joined(separator: ", "))")
    }
}
