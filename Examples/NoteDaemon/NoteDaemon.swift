// A daemon of your own: one entity, one job kind (Notes.swift), the daemon. Run it in a
// directory, then `lineup enqueue add-note text=hello --spool spool` (see the YourOwnDaemon
// article of LineupJobs).
import Foundation
import LineupJobs
import Logging

@main enum NoteDaemon {
    static func main() async throws {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let configuration = DaemonConfiguration(
            storeURL: here.appending(path: "notes.sqlite"), spoolURL: here.appending(path: "spool"), inputDirectory: here,
            outputDirectory: here)
        let daemon = JobDaemon(configuration: configuration, registry: Notes.registry, model: Notes.model, logger: Logger(label: "notes"))
        try await daemon.runWithSignalHandling()
    }
}
