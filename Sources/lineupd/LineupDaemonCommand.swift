import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LineupJobs
import Logging
import SurfJournal

/// `lineupd`: the daemon. Options override the configuration file, which overrides the
/// defaults; SIGHUP re-reads the file and re-applies the options over it.
@main
struct LineupDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineupd",
        abstract: "Runs Lineup jobs from a spool directory until SIGTERM or SIGINT.",
        discussion: """
            SIGUSR1 flushes now; SIGHUP re-reads the configuration file; SIGTERM and SIGINT stop \
            claiming, let running jobs finish within the grace period, return the rest to new/, \
            flush, checkpoint the WAL and exit 0.
            """)

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        // Their default action ends the process: ignored until the daemon traps them, which it
        // does before it opens the store (a supervisor may signal a daemon that is starting).
        signal(SIGHUP, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "lineupd")
        logger.info("lineupd starting", metadata: ["pid": "\(ProcessInfo.processInfo.processIdentifier)"])
        let options = self.options
        let configuration: DaemonConfiguration
        do {
            configuration = try options.makeConfiguration()
        } catch {
            throw ValidationError("\(error)")
        }
        let daemon = JobDaemon(
            configuration: configuration, registry: SurfJournalJobs.registry, model: SurfJournalModel.model,
            logger: logger, hooks: JobDaemon.Hooks(reloadConfiguration: { try options.makeConfiguration() }))
        try await daemon.runWithSignalHandling()
    }
}
