import Foundation
import LineupJobs
import LineupSpool
import Testing

/// `lineup` and `lineupd` as a user runs them: help, `enqueue`, `status` and `run`, each a
/// real child process of the built binary (as swift-argument-parser's
/// `AssertExecuteCommand` does).
@Suite("lineup and lineupd command lines")
struct CommandLineTests {
    @Test("lineup --help exits 0 and lists the subcommands")
    func lineupHelp() async throws {
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup(["--help"])
            #expect(result.termination == .exited(0))
            let listed = Self.entries(after: "SUBCOMMANDS:", in: result.standardOutput)
            #expect(listed == ["enqueue", "status", "failed", "retry", "cancel", "show", "prune", "pause", "resume", "run", "demo", "migrate"], "\(result.standardOutput)")
        }
    }

    @Test("lineupd --help exits 0 and names every option")
    func lineupdHelp() async throws {
        try await withSandbox { sandbox in
            let result = try await sandbox.run(Binaries.lineupd, ["--help"])
            #expect(result.termination == .exited(0))
            let listed = Self.entries(after: "OPTIONS:", in: result.standardOutput)
            #expect(
                listed == [
                    "--store", "--database", "--lease", "--listen-database", "--database-connections", "--spool", "--input", "--output", "--config", "--concurrency", "--flush-interval",
                    "--flush-when-idle/--no-flush-when-idle", "--flush-row-limit", "--flush-job-limit", "--grace-period", "--log-level",
                    "--keep-done", "--timeout",
                    "--http-address", "--http-token-file", "--allowed-host", "--otel-endpoint", "--log-format", "--limit", "-h,",
                ], "\(result.standardOutput)")
            #expect(result.standardOutput.contains("SIGUSR1 flushes now"))
        }
    }

    /// Every option of `lineupd` is a setting's (``DaemonSetting/flag``), whose help gives the
    /// setting's default, or one of `lineupd`'s own; every setting that names an option has it.
    @Test("lineupd's options are the settings' options, with their defaults, and lineupd's own")
    func lineupdOptionsAreTheSettingsOptions() async throws {
        let ownOptions: Set<String> = ["config", "log-format", "http-address", "http-token-file", "help"]
        let settingsByFlag = Dictionary(uniqueKeysWithValues: DaemonSetting.all.compactMap { setting in setting.flag.map { ($0, setting) } })
        try await withSandbox { sandbox in
            let result = try await sandbox.run(Binaries.lineupd, ["--experimental-dump-help"])
            #expect(result.termination == .exited(0))
            let dump = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let arguments = try #require((dump["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
            var optionsOfSettings: Set<String> = []
            for argument in arguments {
                // A flag's inversion (`--no-flush-when-idle`) is an argument of its own, with the flag's help.
                let longNames = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
                    .compactMap { $0["name"] as? String }
                    .map { $0.hasPrefix("no-") && settingsByFlag[String($0.dropFirst(3))] != nil ? String($0.dropFirst(3)) : $0 }
                guard let flag = longNames.first(where: { settingsByFlag[$0] != nil }), let setting = settingsByFlag[flag] else {
                    #expect(!ownOptions.isDisjoint(with: longNames), "an option that no setting describes: \(longNames)")
                    continue
                }
                optionsOfSettings.insert(flag)
                let help = argument["abstract"] as? String ?? ""
                #expect(help.hasSuffix("(default: \(setting.defaultText))."), "--\(flag): \(help)")
            }
            #expect(optionsOfSettings == Set(settingsByFlag.keys))
        }
    }

    @Test("lineup enqueue writes one job file into new/ through tmp/: key=value a string, key:=value JSON")
    func enqueueWritesAJobFile() async throws {
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup([
                "enqueue", "import-buoy", "input=obs/42002.xml", "count:=3", "ratio:=2.5", "enabled:=true",
                #"list:=[1,"a"]"#, #"object:={"k":"v"}"#, "station=41012", "flag=true", "text=hello world", "equation=a=b",
                "--spool", "spool", "--id", "job-1", "--after", "job-0", "--after", "job-00", "--max-attempts", "4",
            ])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            let queued = try sandbox.jobFiles("new")
            try #require(queued.count == 1)
            #expect(try sandbox.fileNames("tmp") == [])
            #expect(try sandbox.fileNames("new") == queued)
            // <UTC time with µs>-<pid>-<token>-<counter>.job.json, so names sort by enqueue time.
            #expect(queued[0].wholeMatch(of: /\d{8}T\d{6}\.\d{6}Z-\d+-[0-9a-f]{6}-1\.job\.json/) != nil, "\(queued[0])")
            #expect(result.standardOutput == sandbox.spool.appending(path: "new/\(queued[0])").path + "\n")

            let job = try sandbox.job("new", queued[0])
            #expect(
                job.fields == [
                    "kind": .string("import-buoy"), "input": .string("obs/42002.xml"), "count": .integer(3),
                    "ratio": .number(2.5), "enabled": .bool(true), "list": .array([.integer(1), .string("a")]),
                    "object": .object(["k": .string("v")]), "station": .string("41012"), "flag": .string("true"),
                    "text": .string("hello world"),
                    "equation": .string("a=b"), "id": .string("job-1"),
                    "after": .array([.string("job-0"), .string("job-00")]), "maxAttempts": .integer(4),
                ])
        }
    }

    @Test(
        "lineup enqueue refuses what is not a job and writes nothing",
        arguments: [
            (["input"], #"parameter "input" is not key=value or key:=json"#),
            (["=obs/42002.xml"], #"parameter "=obs/42002.xml" is not key=value or key:=json"#),
            ([":=3"], #"parameter ":=3" is not key=value or key:=json"#),
            (["station:=41012x"], #"parameter "station:=41012x": 41012x is not JSON (write station=41012x for a string)"#),
            (["kind=other"], "parameter `kind` clashes with the common job field of that name"),
            (["input=a.xml", "--max-attempts", "0"], "field `maxAttempts` must be at least 1"),
        ])
    func enqueueRefusesMalformedParameters(arguments: [String], message: String) async throws {
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup(["enqueue", "import-buoy"] + arguments + ["--spool", "spool"])
            #expect(result.termination != .exited(0))
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(try sandbox.fileNames("new") == [])
            #expect(try sandbox.fileNames("tmp") == [])
        }
    }

    @Test("lineup enqueue --dry-run prints the job file and writes nothing")
    func enqueueDryRun() async throws {
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup([
                "enqueue", "export-csv", "entity=JournalEntry", "output=journal.csv", "limit:=10", "--id", "export",
                "--timeout", "10m", "--dry-run", "--spool", "spool",
            ])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(
                result.standardOutput
                    == #"{"entity":"JournalEntry","id":"export","kind":"export-csv","limit":10,"output":"journal.csv","timeout":600}"#
                    + "\n")
            let spoolExists = FileManager.default.fileExists(atPath: sandbox.spool.appending(path: "new").path)
            #expect(try (spoolExists ? sandbox.fileNames("new") : []).isEmpty)
        }
    }

    @Test("lineup enqueue writes the job file that JobClient writes for the same options")
    func enqueueAgreesWithJobClient() async throws {
        struct Export: Encodable { let entity: String; let output: String; let limit: Int }
        let options = JobOptions(
            id: "export", after: ["import-a", "import-b"], maxAttempts: 4, timeout: .seconds(90), uniqueKey: "exports",
            notBefore: Date(timeIntervalSince1970: 1_795_000_000))
        let library = try JobFile(kind: "export-csv", parameters: Export(entity: "JournalEntry", output: "j.csv", limit: 10), options: options)
        try await withSandbox { sandbox in
            let result = try await sandbox.lineup([
                "enqueue", "export-csv", "entity=JournalEntry", "output=j.csv", "limit:=10", "--id", "export", "--after", "import-a",
                "--after", "import-b", "--max-attempts", "4", "--timeout", "90s", "--unique-key", "exports",
                "--at", "2026-11-18T11:06:40Z", "--dry-run", "--spool", "spool",
            ])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(result.standardOutput == String(decoding: try library.encoded(), as: UTF8.self) + "\n")
        }
    }

    @Test("lineup status prints the counts and warns about files that will never run")
    func statusPrintsCounts() async throws {
        try await withSandbox { sandbox in
            for input in ["a.xml", "b.xml"] {
                let enqueued = try await sandbox.lineup(["enqueue", "import-buoy", "input=\(input)", "--spool", "spool"])
                try #require(enqueued.termination == .exited(0))
            }
            try Data("{}".utf8).write(to: sandbox.spool.appending(path: "new/notes.txt"))
            let result = try await sandbox.lineup(["status", "--spool", "spool"])
            #expect(result.termination == .exited(0))
            #expect(
                result.standardOutput == """
                    queued 2, running 0, done 0, failed 0
                    warning: new/notes.txt is not named *.job.json and will never run
                    daemon: no status file (never started here)

                    """)
        }
    }

    @Test("lineup run imports a sample into the store, and again without duplicating it")
    func runImportsASample() async throws {
        try await withSandbox { sandbox in
            try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input)
            try Data(#"{"kind": "import-buoy", "input": "ndbc-sos-waves-sample.xml"}"#.utf8)
                .write(to: sandbox.root.appending(path: "import.job.json"))
            let arguments = ["run", "import.job.json", "--store", "store.sqlite", "--input", "input", "--output", "output"]

            let first = try await sandbox.lineup(arguments)
            #expect(first.termination == .exited(0), "\(first.standardError)")
            #expect(first.standardOutput.contains("300 observations inserted, 0 updated, 3 stations inserted"), "\(first.standardOutput)")
            let store = StoreInspector(url: sandbox.store)
            #expect(try store.observationCounts() == ["LNP01": 100, "LNP02": 100, "LNP03": 100])

            let second = try await sandbox.lineup(arguments)
            #expect(second.termination == .exited(0), "\(second.standardError)")
            #expect(second.standardOutput.contains("0 observations inserted, 0 updated, 0 stations inserted"), "\(second.standardOutput)")
            #expect(try store.observationCounts() == ["LNP01": 100, "LNP02": 100, "LNP03": 100])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test("lineup run refuses an input outside the input directory, naming the job file")
    func runRefusesAPathOutside() async throws {
        try await withSandbox { sandbox in
            try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.root, as: "outside.xml")
            try Data(#"{"kind": "import-buoy", "input": "../outside.xml"}"#.utf8)
                .write(to: sandbox.root.appending(path: "escape.job.json"))
            let result = try await sandbox.lineup([
                "run", "escape.job.json", "--store", "store.sqlite", "--input", "input", "--output", "output",
            ])
            #expect(result.termination != .exited(0))
            let message = result.standardError + result.standardOutput
            #expect(message.contains("escape.job.json"), "\(message)")
            #expect(message.contains("../outside.xml"), "\(message)")
            #expect(message.contains("climbs out of the input directory"), "\(message)")
            if FileManager.default.fileExists(atPath: sandbox.store.path) {
                #expect(try StoreInspector(url: sandbox.store).observationCount() == 0)
            }
        }
    }

    @Test("lineup run of a job whose input is not XML exits non-zero naming the input")
    func runReportsAFailingJob() async throws {
        try await withSandbox { sandbox in
            try Data("<om:ObservationCollection><om:member>".utf8).write(to: sandbox.input.appending(path: "broken.xml"))
            try Data(#"{"kind": "import-buoy", "input": "broken.xml"}"#.utf8)
                .write(to: sandbox.root.appending(path: "broken.job.json"))
            let result = try await sandbox.lineup([
                "run", "broken.job.json", "--store", "store.sqlite", "--input", "input", "--output", "output",
            ])
            #expect(result.termination != .exited(0))
            #expect(result.standardOutput.hasPrefix("failed: "), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("broken.xml"), "\(result.standardOutput)")
            #expect(try StoreInspector(url: sandbox.store).observationCount() == 0)
        }
    }

    /// The first word of each entry of a help section (`SUBCOMMANDS:`, `OPTIONS:`).
    static func entries(after heading: String, in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [] }
        var words: [String] = []
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            // Entries start two spaces in; wrapped help text is indented further.
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            if let word = line.split(separator: " ").first { words.append(String(word)) }
        }
        return words
    }
}
