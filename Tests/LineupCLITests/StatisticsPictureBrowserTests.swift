import Foundation
import Testing

extension DaemonTests {
    /// The statistics picture as a browser draws it: Chromium measures every label with the font
    /// it really uses (`getBBox`), on the demo's data and on the real files of the corpus.
    @Suite("Statistics picture in Chromium", .enabled(if: Browser.executable != nil || Browser.isRequired, "Chromium is not installed"))
    struct StatisticsPictureBrowserTests {
        /// Pairs of labels whose drawn boxes overlap, and labels drawn outside the picture.
        static let measure = """
            (() => {
              const svg = document.querySelector("svg");
              const width = svg.viewBox.baseVal.width, height = svg.viewBox.baseVal.height;
              const boxes = [...document.querySelectorAll("text")].map(t => {
                const b = t.getBBox(), m = t.getCTM();
                const corners = [[b.x, b.y], [b.x + b.width, b.y + b.height]].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
                return { text: t.textContent, x1: Math.min(corners[0][0], corners[1][0]), x2: Math.max(corners[0][0], corners[1][0]),
                         y1: Math.min(corners[0][1], corners[1][1]), y2: Math.max(corners[0][1], corners[1][1]) };
              });
              const problems = [];
              boxes.forEach((a, i) => {
                if (a.x1 < 0 || a.x2 > width || a.y1 < 0 || a.y2 > height) problems.push("outside: " + a.text);
                boxes.slice(i + 1).forEach(b => {
                  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1), h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
                  if (w > 0.5 && h > 0.5) problems.push(a.text + " / " + b.text);
                });
              });
              return { texts: boxes.length, problems };
            })()
            """

        func measure(_ picture: URL, in sandbox: Sandbox) async throws -> (texts: Int, problems: [String]) {
            let browser = try Browser(logDirectory: sandbox.logs, width: 960, height: 1300)
            try browser.open(picture)
            let result = try #require(try browser.evaluate(Self.measure) as? [String: Any])
            return ((result["texts"] as? Int) ?? 0, (result["problems"] as? [String]) ?? ["no result"])
        }

        @Test("no label of the demo's statistics picture overlaps another or leaves the picture, as Chromium draws them")
        func demoPicture() async throws {
            try await withSandbox { sandbox in
                let package = BuoyFixtures.samplesDirectory.deletingLastPathComponent()
                let demo = try await sandbox.run(Binaries.lineup, ["demo", "--keep"], in: package, timeout: .seconds(120))
                #expect(demo.termination == .exited(0), "\(demo.standardOutput)")
                let kept = try #require(demo.standardOutput.split(separator: "\n").last { $0.hasPrefix("kept ") }).dropFirst(5)
                defer { try? FileManager.default.removeItem(atPath: String(kept)) }
                let picture = URL(fileURLWithPath: String(kept)).appending(path: "output/statistics.svg")
                #expect(demo.standardOutput.contains(picture.path), "the demo says where the picture is")
                let (texts, problems) = try await measure(picture, in: sandbox)
                #expect(texts > 50)
                #expect(problems.isEmpty, "\(problems)")

                let browser = try Browser(logDirectory: sandbox.logs, width: 960, height: 1220)
                try browser.open(picture)
                let screenshot = try browser.screenshot()
                #expect(screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
                if let directory = ProcessInfo.processInfo.environment["LINEUP_SCREENSHOT_DIRECTORY"] {
                    try screenshot.write(to: URL(fileURLWithPath: directory).appending(path: "statistics.png"))
                }
            }
        }

        @Test("no label overlaps on the real files: the SurfJournal store and NDBC's feed and station catalogue")
        func corpusPicture() async throws {
            try await withSandbox { sandbox in
                let corpus = BuoyFixtures.samplesDirectory.deletingLastPathComponent().appending(path: "../shared/corpus").standardizedFileURL
                for suffix in ["", "-wal", "-shm"] {
                    try FileManager.default.copyItem(
                        at: corpus.appending(path: "surfjournal/SurfJournalModel.sqlite\(suffix)"),
                        to: sandbox.input.appending(path: "SurfJournalModel.sqlite\(suffix)"))
                }
                for name in ["ndbc-activestations-2025-06-13.xml", "ndbc-rss-42002-2022-02-27.xml"] {
                    try FileManager.default.copyItem(at: corpus.appending(path: "ndbc/\(name)"), to: sandbox.input.appending(path: name))
                }
                let jobs = [
                    #"{"kind": "import-coredata", "input": "SurfJournalModel.sqlite"}"#,
                    #"{"kind": "import-buoy", "input": "ndbc-activestations-2025-06-13.xml"}"#,
                    #"{"kind": "import-buoy", "input": "ndbc-rss-42002-2022-02-27.xml"}"#,
                    #"{"kind": "statistics", "output": "statistics.json"}"#,
                ]
                for (index, job) in jobs.enumerated() {
                    let file = sandbox.root.appending(path: "job-\(index).job.json")
                    try Data(job.utf8).write(to: file)
                    let result = try await sandbox.lineup([
                        "run", file.path, "--store", sandbox.store.path, "--input", sandbox.input.path, "--output", sandbox.output.path,
                    ])
                    #expect(result.termination == .exited(0), "\(job): \(result.standardOutput) \(result.standardError)")
                }
                let (texts, problems) = try await measure(sandbox.output.appending(path: "statistics.svg"), in: sandbox)
                #expect(texts > 50)
                #expect(problems.isEmpty, "\(problems)")
            }
        }
    }
}
