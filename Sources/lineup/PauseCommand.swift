import ArgumentParser

/// `lineup pause --kind KIND | --queue QUEUE`: the kind's or queue's jobs stay queued, unclaimed,
/// until `lineup resume`, across daemon restarts; jobs running finish.
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Stop claiming the jobs of a kind or a queue; running jobs finish.",
        discussion: """
            The state lies in the spool (paused.json) or the database (lineup_paused), so it survives restarts. \
            A daemon on a spool reads it within a rescan interval; on a database every daemon's next claim obeys it.
            """)

    @OptionGroup var options: PauseOptions

    func run() throws {
        try options.apply(paused: true)
    }
}
