import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// The dashboard in a real browser: headless Chromium opens the page of a running daemon and
    /// is checked as a person would look at it.
    @Suite("Dashboard in Chromium", .enabled(if: Browser.executable != nil || Browser.isRequired, "Chromium is not installed"))
    struct DashboardBrowserTests {
        static let token = "a-token-for-the-browser-0123456789"

        @Test("the page's counts match lineup status, a running job's progress moves without a reload, retry is refused without the token and works with it")
        func dashboardInChromium() async throws {
            try await withSandbox { sandbox in
                // An import long enough to be seen running for a few status updates.
                let long = SampleObservations(seed: 7, count: 300_000, stations: 3)
                try SOSDocumentWriter.write(long, to: sandbox.input.appending(path: "long.xml"))
                let tokenFile = sandbox.root.appending(path: "token")
                try Data(Self.token.utf8).write(to: tokenFile)
                let daemon = try await sandbox.startDaemon([
                    "--http-address", "127.0.0.1:0", "--http-token-file", tokenFile.path, "--flush-interval", "0.2",
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)
                try await sandbox.enqueueImport(id: "missing", input: "missing.xml")
                try await sandbox.poll("the missing import to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }

                let browser = try Browser(logDirectory: sandbox.logs)
                try browser.open(base)
                _ = try browser.evaluate("window.lineupSamePage = true")
                try await browser.wait(for: "the live connection") { #"document.getElementById("connection").dataset.state === "live""# }
                try await browser.wait(for: "the failed job's row") { ##"document.querySelectorAll("#failed button[data-action=retry]").length === 1"## }

                // The demo's jobs and inputs beside it, so that the page (and its picture in the
                // README) shows what the demo does.
                let package = BuoyFixtures.samplesDirectory.deletingLastPathComponent()
                for name in try FileManager.default.contentsOfDirectory(atPath: BuoyFixtures.samplesDirectory.path) {
                    try? FileManager.default.copyItem(
                        at: BuoyFixtures.samplesDirectory.appending(path: name), to: sandbox.input.appending(path: name))
                }
                let demoJobs = try FileManager.default.contentsOfDirectory(atPath: package.appending(path: "Jobs").path)
                    .filter { $0.hasSuffix(".job.json") }.sorted()
                for name in demoJobs {
                    try sandbox.dropJob(named: name, contents: String(contentsOf: package.appending(path: "Jobs/\(name)"), encoding: .utf8))
                }
                try await sandbox.enqueueImport(id: "long", input: "long.xml")
                let progress = ##"document.querySelector("#running tbody td.progress")?.textContent ?? """##
                try await browser.wait(for: "the long import's progress") { "(\(progress)).trim() !== \"\"" }
                let first = try #require(try browser.evaluate(progress) as? String)
                try await browser.wait(for: "the progress to move on from \(first)", timeout: .seconds(60)) {
                    "(\(progress)) !== \(Self.literal(first))"
                }
                #expect(try browser.evaluate("window.lineupSamePage === true") as? Bool == true, "the page was not reloaded")

                // While the import runs and a job has failed: the README's picture.
                let screenshot = try browser.screenshot()
                #expect(screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
                try screenshot.write(to: sandbox.logs.appending(path: "dashboard.png"))
                if let directory = ProcessInfo.processInfo.environment["LINEUP_SCREENSHOT_DIRECTORY"] {
                    try screenshot.write(to: URL(fileURLWithPath: directory).appending(path: "dashboard.png"))
                }

                try await sandbox.poll("the long import and the demo's jobs to be done", timeout: .seconds(120), daemon: daemon) {
                    try sandbox.jobFiles("done").count == demoJobs.count + 1
                }
                let status = try await sandbox.lineup(["status", "--json", "--spool", sandbox.spool.path])
                let printed = try #require(
                    (try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])?["counts"] as? [String: Int])
                #expect(printed == ["queued": 0, "running": 0, "done": demoJobs.count + 1, "failed": 1])
                let shown = #"["queued", "running", "done", "failed"].map(k => k + "=" + document.getElementById("count-" + k).textContent).join(" ")"#
                let expected = ["queued", "running", "done", "failed"].map { "\($0)=\(printed[$0] ?? -1)" }.joined(separator: " ")
                try await browser.wait(for: "the page to show \(expected)") { "(\(shown)) === \(Self.literal(expected))" }

                try await browser.wait(for: "the throughput and the flushes that acknowledged the import") {
                    ##"Number(document.getElementById("throughput-total").textContent) >= 1 && "##
                        + ##"document.querySelectorAll("#flushes tbody tr td").length >= 6"##
                }

                // The statistics job's picture appears on the page once the job is done.
                let statistics = try await sandbox.lineup(["enqueue", "statistics", "output=statistics.json", "--spool", sandbox.spool.path])
                #expect(statistics.termination == .exited(0), "\(statistics.standardError)")
                try await browser.wait(for: "the statistics picture, drawn", timeout: .seconds(60)) {
                    ##"[...document.querySelectorAll("#pictures img")].some(i => i.complete && i.naturalWidth > 0)"##
                }

                // Retry without the token: refused, and the job stays failed.
                let retryButton = ##"document.querySelector("#failed button[data-action=retry]")"##
                _ = try browser.evaluate(#"document.getElementById("token").value = ""; "# + "\(retryButton).click()")
                try await browser.wait(for: "the refusal") { #"document.getElementById("message").textContent.includes("refused (401)")"# }
                #expect(try sandbox.jobFiles("failed").count == 1)

                // With the token: the job goes back to new/, and (its input there now) is done.
                _ = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input, as: "missing.xml")
                _ = try browser.evaluate(
                    #"const field = document.getElementById("token"); field.value = "\#(Self.token)"; "#
                        + #"field.dispatchEvent(new Event("change")); "# + "\(retryButton).click()")
                try await browser.wait(for: "the retry") { #"document.getElementById("message").textContent.endsWith(": done")"# }
                try await sandbox.poll("the retried job to be done", daemon: daemon) {
                    try sandbox.jobFiles("done").count == demoJobs.count + 3 && sandbox.jobFiles("failed").isEmpty
                }
                try await browser.wait(for: "the page to show no failed job") {
                    #"document.getElementById("count-failed").textContent === "0""#
                }

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        /// `text` as a JavaScript string literal.
        static func literal(_ text: String) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }
    }
}
