import Foundation
@testable import LineupJobs
import Testing

/// The group commit's rules on their own: no spool, no store, no thread. Jobs are their names.
@Suite struct AcknowledgementPipelineTests {
    let start = ContinuousClock.now
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aGroupIsEveryJobFinishedSinceTheLastAndIsAcknowledgedWhenFiled() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("a")
        pipeline.finished("b")
        #expect(pipeline.hasGroupToFlush)
        #expect(pipeline.beginFlush() == ["a", "b"])
        #expect(pipeline.isCommitting)
        #expect(!pipeline.hasGroupToFlush)
        pipeline.finished("c")
        // The running flush does not carry c; the count still does.
        #expect(pipeline.unacknowledgedCount == 3)
        let settlement = pipeline.flushCommitted(filingFailed: false, at: start, date) { _ in true }
        #expect(settlement.acknowledged == ["a", "b"])
        #expect(!settlement.isStalled)
        #expect(pipeline.awaitingFlush == ["c"])
        #expect(pipeline.unacknowledgedCount == 1)
    }

    @Test func aFailedFlushPutsItsGroupBackInFrontAndStallsUntilAFlushCommits() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("a")
        _ = pipeline.beginFlush()
        pipeline.finished("b")
        #expect(pipeline.flushFailed(at: start, date) == ["a"])
        #expect(pipeline.awaitingFlush == ["a", "b"])
        #expect(pipeline.consecutiveFlushFailures == 1)
        #expect(pipeline.stalledSince?.date == date)
        // A second failure keeps the time the stall began.
        _ = pipeline.beginFlush()
        _ = pipeline.flushFailed(at: start + .seconds(5), date.addingTimeInterval(5))
        #expect(pipeline.consecutiveFlushFailures == 2)
        #expect(pipeline.stalledSince?.date == date)
        #expect(pipeline.beginFlush() == ["a", "b"])
        let settlement = pipeline.flushCommitted(filingFailed: false, at: start, date) { _ in true }
        #expect(settlement.acknowledged == ["a", "b"])
        #expect(pipeline.consecutiveFlushFailures == 0)
        #expect(pipeline.stalledSince == nil)
    }

    /// A flush whose unwritten changes were discarded (a conflict no policy settles) loses the
    /// changes of its group's jobs and of those that finished since: they are handed back to run
    /// again. Its jobs flushed before and only waiting to be filed were not lost, and wait still.
    @Test func aDiscardedFlushHandsBackTheJobsWhoseChangesItLostAndKeepsThoseToFile() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("a")
        pipeline.finished("b")
        _ = pipeline.beginFlush()
        _ = pipeline.flushCommitted(filingFailed: true, at: start, date) { $0 != "a" }
        #expect(pipeline.awaitingFiling == ["a"])
        pipeline.finished("c")
        #expect(pipeline.beginFlush() == ["a", "c"])
        pipeline.finished("d")
        #expect(pipeline.flushDiscarded() == ["c", "d"])
        #expect(pipeline.awaitingFiling == ["a"])
        #expect(pipeline.awaitingFlush == [])
        #expect(!pipeline.isCommitting)
        #expect(pipeline.unacknowledgedCount == 1)
        #expect(pipeline.beginFlush() == ["a"])
    }

    @Test func jobsFlushedButNotFiledGoFirstInTheNextGroup() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("a")
        pipeline.finished("b")
        _ = pipeline.beginFlush()
        pipeline.finished("c")
        let settlement = pipeline.flushCommitted(filingFailed: true, at: start, date) { $0 != "b" }
        #expect(settlement.acknowledged == ["a"])
        #expect(settlement.isStalled)
        #expect(pipeline.awaitingFiling == ["b"])
        #expect(pipeline.beginFlush() == ["b", "c"])
        let next = pipeline.flushCommitted(filingFailed: false, at: start, date) { _ in true }
        #expect(next.acknowledged == ["b", "c"])
        #expect(!next.isStalled)
    }

    @Test func groupsSettleInTheOrderTheyWereHandedOver() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("first")
        _ = pipeline.beginFlush()
        pipeline.finished("second")
        _ = pipeline.beginFlush()
        #expect(pipeline.flushCommitted(filingFailed: false, at: start, date) { _ in true }.acknowledged == ["first"])
        #expect(pipeline.flushCommitted(filingFailed: false, at: start, date) { _ in true }.acknowledged == ["second"])
        #expect(!pipeline.isCommitting)
    }

    @Test func claimingPausesOnlyWhileStalledWithTheBacklogAtItsLimit() {
        var pipeline = AcknowledgementPipeline<String>()
        for name in ["a", "b", "c"] { pipeline.finished(name) }
        #expect(!pipeline.pausesClaiming(limit: 3))
        _ = pipeline.beginFlush()
        _ = pipeline.flushFailed(at: start, date)
        #expect(pipeline.pausesClaiming(limit: 3))
        #expect(!pipeline.pausesClaiming(limit: 4))
    }

    @Test func aFullGroupFlushesEarlyOnlyWhenNoFlushRunsAndNothingIsStalled() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("a")
        #expect(!pipeline.isGroupFull(limit: 2))
        #expect(!pipeline.isGroupFull(limit: 0))
        pipeline.finished("b")
        #expect(pipeline.isGroupFull(limit: 2))
        _ = pipeline.beginFlush()
        pipeline.finished("c")
        pipeline.finished("d")
        #expect(!pipeline.isGroupFull(limit: 2))
        _ = pipeline.flushFailed(at: start, date)
        // While acknowledgements fail, the interval paces the retries.
        #expect(!pipeline.isGroupFull(limit: 2))
    }

    @Test func shutdownTakesWhatNoFlushCarriedAndWhatWasNotFiled() {
        var pipeline = AcknowledgementPipeline<String>()
        pipeline.finished("filed-late")
        _ = pipeline.beginFlush()
        _ = pipeline.flushCommitted(filingFailed: true, at: start, date) { _ in false }
        pipeline.finished("unflushed")
        let (unflushed, unfiled) = pipeline.takeUnacknowledged()
        #expect(unflushed == ["unflushed"])
        #expect(unfiled == ["filed-late"])
        #expect(pipeline.unacknowledgedCount == 0)
    }
}
