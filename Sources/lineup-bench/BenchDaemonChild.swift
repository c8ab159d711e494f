import Foundation
import LineupLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bench daemon (``BenchDaemonProcess``) that `postgres-jobs` started, seen from the
/// benchmark: its lines read on a thread of their own as they come.
final class BenchDaemonChild: Sendable {
    /// What a daemon said when it stopped.
    struct Totals {
        var acknowledged: Int
        var claims: Int
        var emptyClaims: Int
        var claimP50Microseconds: Int
        var claimP99Microseconds: Int
    }

    private struct State {
        var isReady = false
        var acknowledged = 0
        var totals: Totals?
        /// The process's output closed: it has ended.
        var hasEnded = false
    }

    private let process: Process
    private let state = Locked(State())
    private let ended = DispatchSemaphore(value: 0)

    init(databaseURL: URL, root: URL, claimWindow: Int?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [BenchDaemonProcess.subcommand, databaseURL.absoluteString, root.path] + (claimWindow.map { ["\($0)"] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        self.process = process
        try process.run()
        let reading = output.fileHandleForReading
        let thread = Thread { [state, ended] in
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    state.withLock { Self.read(line, into: &$0) }
                }
            }
            state.withLock { $0.hasEnded = true }
            ended.signal()
        }
        thread.start()
    }

    private static func read(_ line: String, into state: inout State) {
        let words = line.split(separator: " ")
        switch words.first {
        case "ready":
            state.isReady = true
        case "acknowledged":
            if words.count == 2, let count = Int(words[1]) { state.acknowledged = count }
        case "stopped":
            var fields: [String: Int] = [:]
            for word in words.dropFirst() {
                let pair = word.split(separator: "=", maxSplits: 1)
                if pair.count == 2, let value = Int(pair[1]) { fields[String(pair[0])] = value }
            }
            state.totals = Totals(
                acknowledged: fields["acknowledged"] ?? 0, claims: fields["claims"] ?? 0, emptyClaims: fields["empty"] ?? 0,
                claimP50Microseconds: fields["claim_p50_us"] ?? 0, claimP99Microseconds: fields["claim_p99_us"] ?? 0)
        default:
            break
        }
    }

    var isReady: Bool { state.withLock { $0.isReady } }
    /// Whether the process has ended (its output closed): a daemon that could not start.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }
    var acknowledged: Int { state.withLock { $0.acknowledged } }

    /// Asks the daemon to stop (SIGTERM), as a supervisor would.
    func stop() {
        kill(process.processIdentifier, SIGTERM)
    }

    /// The daemon's totals once it has stopped; nil if it did not within `timeout` (it is then
    /// killed) or died without them.
    func totals(within timeout: DispatchTimeInterval) -> Totals? {
        guard ended.wait(timeout: .now() + timeout) == .success else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        process.waitUntilExit()
        return state.withLock { $0.totals }
    }
}
