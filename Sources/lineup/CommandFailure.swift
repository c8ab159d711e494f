/// A command that could not do what it was asked for a reason other than how it was called: no
/// such job, a file it cannot read, jobs still running when the wait ran out.
///
/// ArgumentParser prints a ``ValidationError`` with the command's usage, which helps only when
/// the arguments are wrong. This error prints as `Error: <description>` alone, and exits with 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
