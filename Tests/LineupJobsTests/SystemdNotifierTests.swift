import Foundation
import LineupJobs
import Testing

@Suite struct SystemdNotifierTests {
    @Test("without NOTIFY_SOCKET there is no notifier")
    func noSocketNoNotifier() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
    }

    @Test("the watchdog is on with WATCHDOG_USEC, for this process only")
    func watchdogFromEnvironment() throws {
        let pid = "\(ProcessInfo.processInfo.processIdentifier)"
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x"])?.watchdogTimeout == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "5000000"])?.watchdogTimeout == .seconds(5))
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "5000000", "WATCHDOG_PID": pid])?.watchdogTimeout
                == .seconds(5))
        // Inherited by a child process: not its watchdog.
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "5000000", "WATCHDOG_PID": "1"])?.watchdogTimeout
                == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "0"])?.watchdog == nil)
    }

    @Test("a notification to a socket that is gone fails quietly")
    func missingSocket() throws {
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]))
        #expect(notifier.notify("READY=1") == false)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)])?.notify("READY=1") == false)
    }
}
