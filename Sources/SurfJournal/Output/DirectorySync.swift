import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes the names in the directory of `file` durable: after writing an output aside and renaming
/// it into place, the rename reaches the disk only with an fsync of the directory, and a job must
/// not be acknowledged with an output that a power cut would take back (the power-loss
/// simulation found exactly that for the statistics report). The rename itself is atomic either
/// way; a file system that cannot sync directories (EINVAL) only loses that durability, not data
/// already synced, so a failure here is not reported.
func syncDirectory(containing file: URL) {
    let directory = open(file.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { return }
    _ = fsync(directory)
    close(directory)
}
