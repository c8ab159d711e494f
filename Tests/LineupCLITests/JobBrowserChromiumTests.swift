import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// The dashboard's job browser in headless Chromium: its filters, its paging, a bulk action
    /// and its chart, as a person uses them.
    @Suite("Job browser in Chromium", .enabled(if: Browser.executable != nil || Browser.isRequired, "Chromium is not installed"))
    struct JobBrowserChromiumTests {
        @Test("filters, pages and discards failed jobs in bulk; the chart draws a line per kind")
        func browserInChromium() async throws {
            try await withSandbox { sandbox in
                let done = sandbox.spool.appending(path: "done")
                try FileManager.default.createDirectory(at: done, withIntermediateDirectories: true)
                for number in 1...120 {
                    try JobBrowserTests.writeSettled(
                        done, name: String(format: "job-%06d", number), number: number, kind: number.isMultiple(of: 2) ? "beta" : "alpha",
                        failed: false, finishedAt: Date())
                }
                let tokenFile = sandbox.root.appending(path: "token")
                try Data(JobBrowserTests.token.utf8).write(to: tokenFile)
                let daemon = try await sandbox.startDaemon(["--http-address", "127.0.0.1:0", "--http-token-file", tokenFile.path, "--flush-interval", "0.2"])
                let base = try await sandbox.httpEndpoint(of: daemon)
                for id in ["lost-1", "lost-2"] { try await sandbox.enqueueImport(id: id, input: "\(id).xml") }
                try await sandbox.poll("the two imports to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 2 }

                let browser = try Browser(logDirectory: sandbox.logs)
                try browser.open(base)
                let rows = ##"document.querySelectorAll("#browser tbody tr[data-state]")"##
                let firstJob = ##"document.querySelector("#browser tbody tr[data-state] td a")?.textContent"##
                try await browser.wait(for: "the first page of every job") { "\(rows).length === 50" }
                #expect(try browser.evaluate(firstJob) as? String == "id-job-000120")

                _ = try browser.evaluate(#"document.getElementById("browser-next").click()"#)
                try await browser.wait(for: "the second page") { "\(firstJob) === \"id-job-000070\" && \(rows).length === 50" }
                _ = try browser.evaluate(#"document.getElementById("browser-next").click()"#)
                // 20 done jobs left, then the failed ones.
                try await browser.wait(for: "the last page") {
                    "\(rows).length === 22 && document.getElementById(\"browser-next\").disabled"
                }

                _ = try browser.evaluate(
                    #"document.getElementById("browser-state").value = "done"; document.getElementById("browser-kind").value = "beta"; "#
                        + #"document.getElementById("browser-filters").requestSubmit()"#)
                try await browser.wait(for: "the done beta jobs") {
                    "\(rows).length === 50 && [...\(rows)].every(r => r.children[2].textContent === \"beta\" && r.children[1].textContent === \"done\")"
                }
                _ = try browser.evaluate(#"document.getElementById("browser-next").click()"#)
                try await browser.wait(for: "the second page of them") { "\(rows).length === 10" }

                try await browser.wait(for: "a line per kind in the chart") {
                    ##"[...document.querySelectorAll("#kind-chart polyline")].map(l => l.dataset.kind).join() === "alpha,beta""##
                }

                // Discard every failed job: refused without the token, done with it.
                _ = try browser.evaluate(
                    #"document.getElementById("browser-kind").value = ""; document.getElementById("browser-state").value = "failed"; "#
                        + #"document.getElementById("browser-filters").requestSubmit()"#)
                try await browser.wait(for: "the failed jobs") { "\(rows).length === 2" }
                let discard = ##"document.querySelector("#browser-section button[data-bulk=discard]").click()"##
                _ = try browser.evaluate(#"document.getElementById("token").value = ""; "# + discard)
                try await browser.wait(for: "the refusal") { #"document.getElementById("message").textContent.includes("refused (401)")"# }
                #expect(try sandbox.jobFiles("failed").count == 2)
                _ = try browser.evaluate(#"document.getElementById("token").value = "\#(JobBrowserTests.token)"; "# + discard)
                try await browser.wait(for: "the bulk discard") { #"document.getElementById("message").textContent === "bulk discard: 2 jobs""# }
                #expect(try sandbox.jobFiles("failed").isEmpty)
                try await browser.wait(for: "the page to list no failed job") { "\(rows).length === 0" }

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
