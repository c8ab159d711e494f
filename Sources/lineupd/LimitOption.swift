import ArgumentParser
import LineupJobs
import LineupSpool

/// `--limit SCOPE=running:N,rate:N/SECONDS`: a limit of the configuration file's `limits` given
/// on the command line (`--limit kind:fetch-buoy=rate:10/60`, `--limit queue:imports=running:2`).
enum LimitOption {
    /// What the option takes, for its help.
    static let usage = "kind:NAME or queue:NAME, then =running:N (at once), rate:N/SECONDS, or both, comma-separated; repeated for several, each overriding the configuration file's limit of that kind or queue"

    static func parse(_ text: String) throws -> (JobScope, JobLimit) {
        func invalid() -> ValidationError {
            ValidationError("--limit \(text): expected kind:NAME=running:N,rate:N/SECONDS (either or both), e.g. kind:fetch-buoy=rate:10/60")
        }
        guard let equals = text.lastIndex(of: "="), let scope = JobScope(String(text[..<equals])) else { throw invalid() }
        var limit = JobLimit()
        for part in text[text.index(after: equals)...].split(separator: ",") {
            let pair = part.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { throw invalid() }
            switch pair[0] {
            case "running":
                guard let count = Int(pair[1]) else { throw invalid() }
                limit.maxRunning = count
            case "rate":
                let rate = pair[1].split(separator: "/")
                guard rate.count == 2, let jobs = Int(rate[0]), let seconds = Double(rate[1]) else { throw invalid() }
                limit.rate = JobLimit.Rate(jobs: jobs, per: try DaemonConfiguration.duration(seconds: seconds, of: "--limit \(scope)"))
            default:
                throw invalid()
            }
        }
        return (scope, limit)
    }
}
