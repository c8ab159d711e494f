import ArgumentParser

/// `lineup`: the command line of the Lineup daemon.
@main
struct LineupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineup",
        abstract: "Enqueue jobs, show a spool's status, run one job in the foreground, or run the demo.",
        subcommands: [
            EnqueueCommand.self, StatusCommand.self, FailedCommand.self, RetryCommand.self, CancelCommand.self, ShowCommand.self,
            PruneCommand.self, PauseCommand.self, ResumeCommand.self,
            RunCommand.self, DemoCommand.self, MigrateCommand.self,
        ])
}
