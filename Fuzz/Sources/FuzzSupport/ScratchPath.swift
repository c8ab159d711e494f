import Foundation

/// A path of this process's own under `$TMPDIR` (scripts/fuzz.sh sets it to /dev/shm): a
/// harness writes each input there, because the code under test reads files. The process id
/// keeps parallel fuzzers (`-jobs=N`) apart.
public func scratchPath(_ name: String) -> String {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    return "\(directory)/lineup-fuzz-\(getpid())-\(name)"
}
