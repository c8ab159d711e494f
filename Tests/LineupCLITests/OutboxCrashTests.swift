import BuoyXML
import Foundation
import GRDB
import LineupSpool
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Jobs enqueued with the data, on SQLite: `import-buoy … statistics=<output>` enqueues its
    /// `statistics` job with its rows, into the store's outbox, and the daemon moves it into the
    /// spool after the commit. SIGKILLs land between the commit and the move, and between a job's
    /// arrival in the spool and the deletion of its row (the daemon's fault-injection hook,
    /// `LINEUP_TEST_OUTBOX_KILL_CHANCE`: kills from outside land there too seldom), again and
    /// again; after the restarts every job that reached the outbox is in the spool exactly once.
    @Suite("SIGKILL in the outbox's move")
    struct OutboxCrashTests {
        static let rounds = 40
        static let importsPerRound = 4
        /// Rounds that enqueue imports; the last ones only restart on what the kills left.
        static let enqueueingRounds = 30
        static let killChance = "0.35"

        @Test("120 imports with a statistics follow-up, SIGKILLs in the outbox's move: every job of the outbox in the spool once")
        func killsBetweenTheCommitAndTheMoveNeitherLoseNorDoubleAJob() async throws {
            let clock = ContinuousClock()
            let began = clock.now
            try await withSandbox { sandbox in
                for station in 0..<4 {
                    let records = BuoyFixtures.records(station: "OB0\(station + 1)", seed: UInt64(station + 1), count: 30)
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "outbox-\(station).xml"))
                }
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushInterval": 0.2, "rescanInterval": 0.1, "statusInterval": 0.5, "concurrency": 2}"#
                        .utf8
                ).write(to: configuration)
                let arguments = ["--config", configuration.path]
                let spool = try SpoolDirectory(root: sandbox.spool)
                let importIDs = (0..<(Self.enqueueingRounds * Self.importsPerRound)).map { "outbox-import-\($0)" }

                var killedByTheHook = 0
                var stoppedGracefully = 0
                for round in 0..<Self.rounds {
                    let daemon = try sandbox.launch(
                        Binaries.lineupd, sandbox.daemonLocationArguments + arguments, logName: "lineupd",
                        environment: ["LINEUP_TEST_OUTBOX_KILL_CHANCE": Self.killChance])
                    if round < Self.enqueueingRounds {
                        for number in 0..<Self.importsPerRound {
                            let id = importIDs[round * Self.importsPerRound + number]
                            try spool.enqueue(
                                JobFile(
                                    kind: "import-buoy", id: id,
                                    parameters: ["input": .string("outbox-\(number).xml"), "statistics": .string("\(id).json")]))
                        }
                    }
                    // The hook kills the daemon; one that outlives the round's work stops gracefully
                    // (a kill from here could land anywhere, and rerun an import after its flush).
                    var termination = try? await daemon.waitForExit(timeout: .seconds(4))
                    if termination == nil {
                        daemon.send(SIGTERM)
                        termination = try await daemon.waitForExit(timeout: .seconds(30))
                    }
                    switch termination {
                    case .signalled(SIGKILL)?: killedByTheHook += 1
                    case .exited(0)?: stoppedGracefully += 1
                    default: Issue.record("round \(round + 1) ended with \(String(describing: termination))\n\(daemon.logTail())")
                    }
                }

                let daemon = try await sandbox.startDaemon(arguments)
                let expected = importIDs.count * 2
                try await sandbox.poll("every import and its follow-up to be done", timeout: .seconds(60), daemon: daemon) {
                    try sandbox.jobFiles("done").count + sandbox.jobFiles("failed").count >= expected
                }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(30)) == .exited(0), "\(daemon.logTail())")

                // Every import once, done. Every outbox row became one spool job: no name twice
                // (a move done twice would leave two files of one name). An import's follow-up is
                // there once for each run of it whose rows reached the disk: once, or more only
                // for an import that a kill made run again (its flush had written its rows but not
                // yet filed it in done/: the spool's at-least-once, which the report counts).
                var importPlaces: [String: [String]] = [:]
                var followUpNames: [String: [String]] = [:]
                var followUpsOf: [String: Int] = [:]
                var others: [String] = []
                for directory in ["new", "active", "done", "failed"] {
                    for file in try sandbox.jobFiles(directory) {
                        let job = try sandbox.job(directory, file)
                        if job.kind == "import-buoy", let id = job.id {
                            importPlaces[id, default: []].append(directory)
                        } else if job.kind == "statistics", let id = job.id, id.hasSuffix("-statistics") {
                            #expect(directory == "done", "\(file) is in \(directory)/")
                            let name = String(file.prefix { $0 != "." })
                            #expect(name.contains("-outbox-"), "a follow-up under its outbox name: \(file)")
                            followUpNames[name, default: []].append(directory)
                            followUpsOf[String(id.dropLast("-statistics".count)), default: 0] += 1
                        } else {
                            others.append("\(directory)/\(file)")
                        }
                    }
                }
                #expect(others.isEmpty, "jobs invented: \(others)")
                #expect(importPlaces.count == importIDs.count && importPlaces.values.allSatisfy { $0 == ["done"] }, "\(importPlaces)")
                let movedTwice = followUpNames.filter { $0.value.count > 1 }
                #expect(movedTwice.isEmpty, "outbox rows moved into the spool twice: \(movedTwice)")
                var rerunImports = 0
                for id in importIDs {
                    let count = followUpsOf[id] ?? 0
                    var interruptions = 0
                    if let file = try sandbox.jobFiles("done").first(where: { (try? sandbox.job("done", $0).id) == id }) {
                        interruptions = try sandbox.resultReport(forJobFile: file).interruptions
                    }
                    if interruptions > 0 { rerunImports += 1 }
                    #expect(count >= 1, "the follow-up of \(id) was lost")
                    #expect(count <= 1 + interruptions, "\(id) ran \(1 + interruptions) time(s) and has \(count) follow-ups")
                }
                #expect(try outboxRowCount(sandbox.store) == 0)
                #expect(try StoreInspector(url: sandbox.store).integrityCheck() == "ok")

                // The kills landed where they had to.
                let log = sandbox.daemonLog
                let afterCommit = log.components(separatedBy: "outbox fault injection: SIGKILL after-commit").count - 1
                let afterSpoolWrite = log.components(separatedBy: "outbox fault injection: SIGKILL after-spool-write").count - 1
                let foundAlready = log.components(separatedBy: "job from the outbox found in the spool already").count - 1
                #expect(afterCommit >= 1 && afterSpoolWrite >= 1, "kills after the commit: \(afterCommit), after a spool write: \(afterSpoolWrite)")
                #expect(foundAlready >= afterSpoolWrite, "each job in the spool whose row a kill kept is found there at the restart")
                print(
                    """
                    outbox crash test: \(Self.rounds) runs, \(killedByTheHook) SIGKILLed by the hook (\(afterCommit) after a \
                    commit, \(afterSpoolWrite) after a spool write), \(stoppedGracefully) stopped by SIGTERM; \(foundAlready) \
                    jobs found in the spool already at a restart; \(importPlaces.count) imports done \
                    (\(rerunImports) run again after a kill), \(followUpNames.count) follow-ups done; \(clock.now - began)
                    """)
            }
        }

        /// The rows left in the store's outbox, read from outside.
        private func outboxRowCount(_ store: URL) throws -> Int {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: store.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lineup_outbox") ?? -1 }
        }
    }
}
