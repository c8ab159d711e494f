import ArgumentParser

/// `lineup resume --kind KIND | --queue QUEUE`: undoes `lineup pause`.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Claim the jobs of a paused kind or queue again.")

    @OptionGroup var options: PauseOptions

    func run() throws {
        try options.apply(paused: false)
    }
}
