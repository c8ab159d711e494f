import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import LineupLocking
import LineupTesting
import Testing

/// The test kit, used as a user's tests would use it: inline runs, captured enqueues, and
/// draining through the real runner on a clock the test moves. No test here sleeps.
@Suite(.timeLimit(.minutes(2))) struct JobTesterTests {
    func notesOnDisk(_ tester: JobTester) throws -> Int {
        try tester.container.rowCount(of: "Note")
    }

    @Test func inlineRunReturnsItsOutcomeAndReportAndItsRowsAreOnDisk() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            let run = try await tester.run("add-note", AddNote(text: "hello"), options: JobOptions(id: "first"))
            #expect(run.outcome == JobOutcome(summary: "noted hello", counts: ["notes": 1]))
            let report = try #require(run.report)
            #expect(report.id == "first" && report.kind == "add-note" && report.attempts == 1)
            #expect(report.details["counts"] == .object(["notes": .integer(1)]))
            #expect(try notesOnDisk(tester) == 1)
            // Inline: the spool saw nothing.
            #expect(try tester.doneJobs().isEmpty && tester.enqueued().isEmpty)
        }
    }

    @Test func inlineRunOfARefusedJobComesBackFailedWithTheDaemonsError() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            let unknown = try await tester.run(JobFile(kind: "no-such-kind"))
            let error = try #require(unknown.error as? JobError)
            #expect(error.code == .unknownKind)
            #expect(error.description.contains("known kinds: add-note, await-forever, flaky"), "\(error)")
            let badParameters = try await tester.run(JobFile(kind: "add-note", parameters: ["txt": "typo"]))
            #expect((badParameters.error as? JobError)?.code == .invalidParameters)
            #expect(try notesOnDisk(tester) == 0)
        }
    }

    @Test func jobsThatCodeUnderTestEnqueuesAreCapturedWithTheirOptions() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            try signUp("ada", client: tester.client, now: tester.clock.now)
            let jobs = try tester.enqueued()
            #expect(jobs.count == 1)
            let job = try #require(jobs.first)
            #expect(job.kind == "add-note" && job.id == "welcome-ada")
            #expect(try job.parameters(as: AddNote.self).text == "welcome ada")
            let notBefore = try #require(job.notBefore)
            #expect(abs(notBefore.timeIntervalSince(tester.clock.now) - 3600) < 1)
        }
    }

    @Test func jobsEnqueuedInASaveAreCapturedOnceTheSaveIsOnDiskAndNotBefore() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            // Code under test: records a note and, in the same save, the job that follows it up.
            let context = tester.container.newTaskContext(name: "code under test")
            try context.performAndWait {
                Note(context: context).text = "draft"
                try context.enqueue(JobFile(kind: "add-note", parameters: AddNote(text: "follow-up"), options: JobOptions(id: "follow-up")))
                try context.save()
            }
            #expect(try tester.enqueued().isEmpty, "saved into main, not on disk yet")
            // A context that is rolled back enqueues nothing.
            let discarded = tester.container.newTaskContext(name: "discarded")
            try discarded.performAndWait {
                try discarded.enqueue(JobFile(kind: "add-note", parameters: AddNote(text: "never")))
                discarded.rollback()
            }
            try await tester.flush()
            #expect(try tester.enqueued().map(\.id) == ["follow-up"])
            #expect(try await tester.drain().done("follow-up") != nil)
            #expect(try notesOnDisk(tester) == 2)
        }
    }

    @Test func aScheduledJobRunsOnlyOnceTheClockReachesItsTime() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            try signUp("ada", client: tester.client, now: tester.clock.now)
            try tester.client.enqueue("add-note", AddNote(text: "now"))
            #expect(try await tester.drain().done.map(\.kind) == ["add-note"])
            #expect(try notesOnDisk(tester) == 1)

            tester.advance(by: .seconds(3599))
            #expect(try await tester.drain().done.isEmpty)
            tester.advance(by: .seconds(1))
            let later = try await tester.drain()
            #expect(later.done("welcome-ada") != nil, "\(later.done)")
            #expect(try notesOnDisk(tester) == 2)
        }
    }

    @Test func aRetryWaitsItsBackoffOnTheTestsClock() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry(), configure: {
            $0.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(10), maxDelay: .seconds(60))
        }) { tester in
            try tester.client.enqueue("flaky", FlakyTask.Parameters(failures: 2), options: JobOptions(id: "flaky"))
            let first = try await tester.drain()
            #expect(first.done.isEmpty && first.failed.isEmpty, "the job waits for its retry")
            // Attempt 1 failed: the backoff is 10 s (no jitter in the tester); attempt 2 fails
            // too, and waits 20 s.
            tester.advance(by: .milliseconds(9_900))
            #expect(try await tester.drain().done.isEmpty)
            tester.advance(by: .milliseconds(100))
            #expect(try await tester.drain().done.isEmpty)
            tester.advance(by: .seconds(20))
            let done = try #require(try await tester.drain().done("flaky"))
            #expect(done.attempts == 3)
        }
    }

    @Test func aCronEntryEnqueuesItsJobWhenTheClockPassesItsTime() async throws {
        // Just after a whole hour, so that the next five-minute mark is known.
        var start = Date()
        start = Date(timeIntervalSince1970: (start.timeIntervalSince1970 / 3600).rounded(.down) * 3600 + 3600 + 30)
        let entry = try CronJob(name: "notes", schedule: CronSchedule("*/5 * * * *"), job: JobFile(kind: "add-note", parameters: ["text": "tick"]))
        try await withJobTester(model: noteModel, registry: noteRegistry(), clock: TestClock(now: start), configure: { $0.cron = [entry] }) { (tester: JobTester) async throws in
            // The daemon's start enqueues the period it started in (hh:00).
            #expect(try await tester.drain().done.map(\.kind) == ["add-note"])
            tester.advance(by: .seconds(240))    // hh:04:30
            #expect(try await tester.drain().done.isEmpty)
            tester.advance(by: .seconds(60))     // hh:05:30
            #expect(try await tester.drain().done.map(\.kind) == ["add-note"])
            #expect(try notesOnDisk(tester) == 2)
        }
    }

    @Test func aTimeLimitIsUpWhenTheClockPassesIt() async throws {
        let (running, started) = AsyncStream<Void>.makeStream()
        try await withJobTester(model: noteModel, registry: noteRegistry(running: started)) { tester in
            try tester.client.enqueue("await-forever", [String: String](), options: JobOptions(maxAttempts: 1, timeout: .seconds(600)))
            let drained = Task { try await tester.drain() }
            var iterator = running.makeAsyncIterator()
            _ = await iterator.next()
            tester.advance(by: .seconds(599))
            tester.advance(by: .seconds(1))
            let report = try await drained.value
            let failed = try #require(report.failed.first)
            #expect(failed.reason.contains("timed out after 600 s and was cancelled"), "\(failed.reason)")
            #expect(try notesOnDisk(tester) == 0)
        }
    }

    /// Issue 52: a follow-up enqueued with the task's data (`context.enqueue`) exists once the
    /// save is on disk, and the drain runs it too, in the same drain; a retried attempt's follow-up
    /// is enqueued by the attempt that succeeds, once.
    @Test(arguments: [1, 2]) func jobsEnqueuedWithTheDataAreDrainedInTheSameDrain(succeedingAttempt: Int) async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry(client: { nil })) { tester in
            try tester.client.enqueue(
                "add-note", AddNote(text: "first", followUpWithTheData: "second", failsBeforeAttempt: succeedingAttempt))
            var report = try await tester.drain()
            if succeedingAttempt > 1 {
                // The retry waits its backoff on the test's clock.
                tester.advance(by: .seconds(3600))
                report = try await tester.drain()
            }
            #expect(report.done.compactMap { $0.details["summary"]?.stringValue }.sorted() == ["noted first", "noted second"])
            #expect(try notesOnDisk(tester) == 2)
        }
    }

    @Test func jobsThatJobsEnqueueAreDrainedInTheSameDrain() async throws {
        let spool = Locked<JobClient?>(nil)
        try await withJobTester(model: noteModel, registry: noteRegistry(client: { spool.withLock { $0 } })) { tester in
            spool.withLock { $0 = tester.client }
            try tester.client.enqueue("add-note", AddNote(text: "first", followUp: "second"))
            let report = try await tester.drain()
            #expect(report.done.count == 2)
            #expect(try notesOnDisk(tester) == 2)
        }
    }

    @Test func assertEnqueuedFindsAJobByKindAndASubsetOfItsParameters() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            // Enqueued with the data by an inline run: in the spool once its flush is done.
            _ = try await tester.run("add-note", AddNote(text: "first", followUpWithTheData: "second"))
            try signUp("ada", client: tester.client, now: tester.clock.now)

            let followUp = try tester.assertEnqueued(kind: "add-note", parameters: ["text": "second"])
            #expect(followUp.id == nil)
            // A job with more parameters matches; a typed value matches as the dictionary does.
            #expect(try tester.assertEnqueued(kind: "add-note", parameters: AddNote(text: "welcome ada")).id == "welcome-ada")
            try tester.assertEnqueued(kind: "add-note")
            try tester.assertNotEnqueued(kind: "add-note", parameters: ["text": "third"])
            try tester.assertNotEnqueued(kind: "no-such-kind")

            let missing = #expect(throws: JobTesterError.self) {
                try tester.assertEnqueued(kind: "add-note", parameters: ["text": "third"])
            }
            // It says what it looked for, and what was there instead.
            #expect(missing?.description.contains(#"no job add-note with parameters {"text":"third"} is enqueued; enqueued: "#) == true, "\(String(describing: missing))")
            #expect(missing?.description.contains(#"add-note {"text":"second"}"#) == true, "\(String(describing: missing))")
            let wrongKind = #expect(throws: JobTesterError.self) { try tester.assertEnqueued(kind: "flaky", parameters: ["text": "second"]) }
            #expect(wrongKind != nil)
            let present = #expect(throws: JobTesterError.self) { try tester.assertNotEnqueued(kind: "add-note", parameters: ["text": "second"]) }
            #expect(present?.description.hasPrefix(#"a job add-note with parameters {"text":"second"} is enqueued"#) == true, "\(String(describing: present))")
        }
    }

    @Test func assertEnqueuedComparesNumbersByValueAndNestedObjectsAsSubsets() async throws {
        try await withJobTester(model: noteModel, registry: noteRegistry()) { tester in
            try tester.client.enqueue(
                JobFile(kind: "add-note", parameters: ["text": "n", "limit": 3, "filter": ["station": "41001", "since": 2024]]))
            try tester.assertEnqueued(kind: "add-note", parameters: ["limit": 3.0] as [String: Double])
            try tester.assertEnqueued(kind: "add-note", parameters: ["filter": ["station": "41001"]] as [String: [String: String]])
            #expect(throws: JobTesterError.self) {
                try tester.assertEnqueued(kind: "add-note", parameters: ["filter": ["station": "41002"]] as [String: [String: String]])
            }
            #expect(throws: JobTesterError.self) { try tester.assertEnqueued(kind: "add-note", parameters: ["limit": 4]) }
        }
    }
}
