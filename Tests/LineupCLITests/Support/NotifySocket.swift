import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The receiving end of systemd's notification protocol: a Unix datagram socket bound at a path,
/// as systemd binds `$NOTIFY_SOCKET`, that keeps every message it receives.
///
/// `@unchecked Sendable`: the descriptor is only read from, and `messages` is guarded by `lock`.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
        // Reads wake every 100 ms, so that a wait can give up.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Every message received so far, in order.
    var messages: [String] {
        drain()
        return lock.withLock { received }
    }

    /// Waits until a message satisfies `condition`, and returns it.
    func waitFor(_ what: String, timeout: Duration, _ condition: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var seen = 0
        while ContinuousClock.now < deadline {
            receiveOne()
            let all = lock.withLock { received }
            if let match = all[seen...].first(where: condition) { return match }
            seen = all.count
        }
        throw HarnessError("no notification \(what) within \(timeout); received: \(messages)")
    }

    private func drain() {
        var flags: Int32 = 0
        flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        while receiveOne() {}
        _ = fcntl(descriptor, F_SETFL, flags)
    }

    @discardableResult
    private func receiveOne() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        let message = String(decoding: buffer[..<count], as: UTF8.self)
        lock.withLock { received.append(message) }
        return true
    }
}
