@testable import LineupJobs
import Testing

/// The runner's `after` bookkeeping on its own: no spool, no store, no thread.
@Suite struct DependencyBookTests {
    /// Outcomes of jobs settled before, as a job storage would give them.
    let settledBefore: [String: SettledJobOutcome] = ["old-import": .done, "broken": .failed(reason: "no stations")]

    func verdict(_ book: DependencyBook, _ claim: String, after: [String]) -> DependencyBook.Verdict {
        book.verdict(for: claim, after: after) { settledBefore[$0] }
    }

    @Test func aJobWhoseDependenciesAreAllDoneIsReady() {
        let book = DependencyBook()
        #expect(verdict(book, "c1", after: []) == .ready)
        #expect(verdict(book, "c1", after: ["old-import"]) == .ready)
    }

    @Test func aJobWaitsForJobsInHandAndForIdsNotSeenYet() {
        var book = DependencyBook()
        book.hold(claim: "import-claim", id: "import", after: [])
        #expect(verdict(book, "stats-claim", after: ["import", "later", "old-import"]) == .waiting(inHand: ["import"], unknown: ["later"]))
    }

    @Test func theFirstFailedDependencyInItsListDecides() {
        var book = DependencyBook()
        book.hold(claim: "import-claim", id: "import", after: [])
        #expect(verdict(book, "stats", after: ["import", "broken"]) == .dependencyFailed(id: "broken", reason: "no stations"))
    }

    @Test func aJobInHandHidesAnEarlierSettledJobWithItsId() {
        var book = DependencyBook()
        book.hold(claim: "again", id: "old-import", after: [])
        #expect(verdict(book, "stats", after: ["old-import"]) == .waiting(inHand: ["old-import"], unknown: []))
    }

    @Test func aCycleThroughJobsInHandIsFoundFromEitherEnd() {
        var book = DependencyBook()
        book.hold(claim: "a", id: "a", after: ["b"])
        // b is not in hand yet: a only waits.
        #expect(verdict(book, "a", after: ["b"]) == .waiting(inHand: [], unknown: ["b"]))
        book.hold(claim: "b", id: "b", after: ["c"])
        book.hold(claim: "c", id: "c", after: ["a"])
        #expect(verdict(book, "c", after: ["a"]) == .cycle(through: "a"))
        #expect(verdict(book, "a", after: ["b"]) == .cycle(through: "b"))
        // Waiting for oneself is the shortest cycle.
        book.hold(claim: "self", id: "self", after: ["self"])
        #expect(verdict(book, "self", after: ["self"]) == .cycle(through: "self"))
    }

    @Test func settlingAJobHandsBackTheJobsParkedOnItOnce() {
        var book = DependencyBook()
        book.hold(claim: "import-claim", id: "import", after: [])
        book.hold(claim: "stats", id: nil, after: ["import"])
        book.hold(claim: "export", id: nil, after: ["import", "later"])
        book.park("stats", on: ["import"])
        book.park("export", on: ["import", "later"])
        #expect(book.parkedCount == 2)
        #expect(book.hasWaiters(forID: "import"))
        #expect(book.settle(claim: "import-claim", id: "import") == ["stats", "export"])
        // Nobody holds the id any more, and the waiters stay parked until they are judged again.
        #expect(book.holder(ofID: "import") == nil)
        book.park("stats", on: [])
        book.park("export", on: ["later"])
        #expect(!book.hasWaiters(forID: "import"))
        #expect(book.awaitedIDs(of: "export") == ["later"])
        #expect(book.settle(claim: "import-claim", id: "import") == [])
    }

    @Test func aSettledDuplicateOfAnIdInHandWakesNobody() {
        var book = DependencyBook()
        book.hold(claim: "first", id: "nightly", after: [])
        book.hold(claim: "second", id: "nightly", after: [])
        book.park("stats", on: ["nightly"])
        // The first claim of the id settles, while the latest still holds it.
        #expect(book.settle(claim: "first", id: "nightly") == [])
        #expect(book.holder(ofID: "nightly") == "second")
        #expect(book.settle(claim: "second", id: "nightly") == ["stats"])
    }

    @Test func aJobThatFailsBeforeItIsInHandWakesTheJobsWaitingForItsId() {
        var book = DependencyBook()
        book.park("stats", on: ["import"])
        // An invalid job file with the id: failed at admission, never held.
        #expect(book.settle(claim: "invalid", id: "import") == ["stats"])
    }

    @Test func aSettledJobIsNoLongerParkedNorAnEdgeOfACycle() {
        var book = DependencyBook()
        book.hold(claim: "a", id: "a", after: ["b"])
        book.park("a", on: ["b"])
        _ = book.settle(claim: "a", id: "a")
        #expect(book.parkedCount == 0)
        book.hold(claim: "b", id: "b", after: ["a"])
        #expect(verdict(book, "b", after: ["a"]) == .waiting(inHand: [], unknown: ["a"]))
    }
}

extension DependencyBookTests {
    @Test func onlyJobsWaitingForAJobInHandCountAgainstTheClaimWindow() {
        var book = DependencyBook()
        book.park("stats", on: ["import"], inHand: true)
        book.park("export", on: ["later"], inHand: false)
        #expect(book.parkedOnJobsInHandCount == 1)
        // Judged again and parked only on an id not seen yet: it no longer counts.
        book.park("stats", on: ["later"], inHand: false)
        #expect(book.parkedOnJobsInHandCount == 0)
        book.park("stats", on: ["import"], inHand: true)
        _ = book.settle(claim: "stats", id: nil)
        #expect(book.parkedOnJobsInHandCount == 0)
        #expect(book.parkedCount == 1)
    }
}
