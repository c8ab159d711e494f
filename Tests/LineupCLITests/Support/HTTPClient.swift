import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What an HTTP request to `lineupd` answered.
struct HTTPAnswer {
    let status: Int
    let headers: [String: String]
    let body: String

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

extension Sandbox {
    /// Waits for `lineupd`'s "HTTP endpoint listening" log line and returns its base URL (the
    /// port chosen when the address asked for port 0). A wildcard address is reached on loopback.
    func httpEndpoint(of daemon: ChildProcess) async throws -> URL {
        var address: String?
        try await poll("the HTTP endpoint to listen", timeout: .seconds(30), daemon: daemon) {
            let line = daemonLog.split(separator: "\n").last { $0.contains("HTTP endpoint listening") }
            address = line.flatMap { $0.split(separator: " ").first { $0.hasPrefix("address=") } }.map { String($0.dropFirst(8)) }
            return address != nil
        }
        let found = try #require(address).replacingOccurrences(of: "0.0.0.0:", with: "127.0.0.1:")
        return try #require(URL(string: "http://\(found)"))
    }
}

/// Requests over loopback, as a script or a browser makes them.
enum HTTP {
    static func request(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> HTTPAnswer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return HTTPAnswer(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self))
    }
}

/// A raw connection reading a server-sent event stream as it comes (URLSession on Linux hands
/// a body over only when it ends).
final class EventStreamReader {
    private let descriptor: Int32
    /// Everything read so far: headers, chunk sizes and events.
    private(set) var text = ""

    init(port: Int, path: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            Glibc.close(descriptor)
            throw HarnessError("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Reads until `condition` holds for what was read, or `timeout` passes (then throws); returns
    /// false when the server closed the connection first.
    @discardableResult
    func read(until what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !condition(text) {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("timed out after \(timeout) waiting for \(what) in the event stream; read:\n\(text.suffix(2_000))")
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else {
                await Task.yield()
                continue
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return false }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return true
    }
}
