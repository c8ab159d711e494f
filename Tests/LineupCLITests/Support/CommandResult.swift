/// What a command that ran to its end did.
struct CommandResult {
    let termination: ChildProcess.Termination
    let standardOutput: String
    let standardError: String
}
