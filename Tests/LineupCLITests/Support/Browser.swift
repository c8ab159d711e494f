import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium (Debian's `chromium`), driven over the DevTools protocol through
/// `--remote-debugging-pipe`: commands go to its descriptor 3 and answers come from its
/// descriptor 4, one JSON object each, ended by a NUL. No WebSocket and no driver are needed.
///
/// One page: ``open(_:)`` it, ``evaluate(_:)`` script in it (promises awaited), take a
/// ``screenshot()``. Blocking calls with timeouts, for tests.
final class Browser {
    /// Where Chromium is, if it is installed.
    static let executable: URL? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].lazy
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Whether a missing Chromium fails the test rather than skipping it (`.ci/run` sets it).
    static var isRequired: Bool {
        ProcessInfo.processInfo.environment["LINEUP_REQUIRE_CHROMIUM"] == "1"
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private var pending: [UInt8] = []
    private var nextID = 0
    private var session = ""
    private let profile: URL

    /// Starts Chromium with a window of `width` × `height`, its log in `logDirectory`.
    init(logDirectory: URL, width: Int = 1280, height: Int = 900) throws {
        guard let executable = Self.executable else { throw HarnessError("Chromium is not installed (apt-get install chromium)") }
        profile = logDirectory.appending(path: "chromium-profile-\(UUID().uuidString.prefix(8))")
        var toBrowser: [Int32] = [-1, -1]
        var fromBrowser: [Int32] = [-1, -1]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw HarnessError("cannot make pipes for Chromium: errno \(errno)")
        }
        // Only the descriptors duplicated to 3 and 4 reach Chromium (dup2 clears the flag).
        for descriptor in toBrowser + fromBrowser {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let log = logDirectory.appending(path: "chromium.log").path
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = [
            executable.path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--remote-debugging-pipe",
            "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, &argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw HarnessError("cannot start Chromium: error \(spawned)")
        }
        self.pid = pid
        commands = toBrowser[1]
        answers = fromBrowser[0]
    }

    deinit {
        close(commands)
        close(answers)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Opens a new page at `url` and waits for it to load.
    func open(_ url: URL) throws {
        let target = try send("Target.createTarget", ["url": "about:blank"], inSession: false)
        let targetID = try #require(target["targetId"] as? String)
        let attached = try send("Target.attachToTarget", ["targetId": targetID, "flatten": true], inSession: false)
        session = try #require(attached["sessionId"] as? String)
        _ = try send("Page.enable", [:])
        _ = try send("Page.navigate", ["url": url.absoluteString])
        _ = try waitForEvent("Page.loadEventFired", timeout: .seconds(30))
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value as JSON
    /// gives it (a string, a number, a Boolean, an array or an object); throws on an exception.
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw HarnessError("the page threw: \(exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Evaluates the expression until it is true, or throws after `timeout`.
    func wait(for what: String, timeout: Duration = .seconds(30), _ script: () -> String) async throws {
        let expression = script()
        let deadline = ContinuousClock.now + timeout
        while try evaluate(expression) as? Bool != true {
            guard ContinuousClock.now < deadline else { throw HarnessError("timed out after \(timeout) waiting for \(what) in the page") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// A PNG of the page as it is drawn now, the whole page's height.
    func screenshot() throws -> Data {
        let result = try send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        let text = try #require(result["data"] as? String)
        return try #require(Data(base64Encoded: text))
    }

    // MARK: - The protocol

    private func send(_ method: String, _ parameters: [String: Any], inSession: Bool = true) throws -> [String: Any] {
        nextID += 1
        var message: [String: Any] = ["id": nextID, "method": method, "params": parameters]
        if inSession { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard count > 0 else { throw HarnessError("cannot write to Chromium: errno \(errno)") }
            written += count
        }
        let id = nextID
        let answer = try receive(timeout: .seconds(30), what: method) { $0["id"] as? Int == id }
        if let error = answer["error"] as? [String: Any] {
            throw HarnessError("Chromium refused \(method): \(error)")
        }
        return answer["result"] as? [String: Any] ?? [:]
    }

    private func waitForEvent(_ method: String, timeout: Duration) throws -> [String: Any] {
        try receive(timeout: timeout, what: method) { $0["method"] as? String == method }
    }

    /// Reads messages until one matches; the others (events) are dropped.
    private func receive(timeout: Duration, what: String, _ matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            while let end = pending.firstIndex(of: 0) {
                let message = Array(pending[..<end])
                pending.removeSubrange(...end)
                if let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any], matches(object) {
                    return object
                }
            }
            guard ContinuousClock.now < deadline else { throw HarnessError("Chromium did not answer \(what) within \(timeout)") }
            var ready = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let count = read(answers, &buffer, buffer.count)
            guard count > 0 else { throw HarnessError("Chromium closed its pipe (see chromium.log)") }
            pending += buffer[..<count]
        }
    }
}
