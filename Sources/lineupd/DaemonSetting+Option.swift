import ArgumentParser
import LineupJobs

/// A setting's `lineupd` option, named and explained by the setting's description
/// (``DaemonSetting``), so that `--help`, the configuration file's documentation and the docs'
/// table of settings say the same.
extension DaemonSetting {
    /// The option's name: the description's flag. A setting without one has no option.
    var optionName: NameSpecification {
        guard let flag else { preconditionFailure("the setting \(name) has no lineupd option") }
        return .customLong(flag)
    }

    /// The option's help: the setting's meaning, then what the option takes where the meaning
    /// does not say (`usage`), then its default.
    func optionHelp(_ usage: String? = nil) -> ArgumentHelp {
        ArgumentHelp([meaning, usage].compactMap { $0 }.joined(separator: "; ") + " (default: \(defaultText)).")
    }
}
