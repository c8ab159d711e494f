import Foundation
import Testing

@testable import LineupJobs

/// The runner's stages of a job: the moves it takes, and the article that shows them.
struct JobStageTests {
    @Test func howAJobTravelsShowsTheMovesTheRunnerTakes() throws {
        let table = try generatedText(
            inArticle: "HowAJobTravels", between: "<!-- JobStage.movesTable -->", and: "<!-- end of JobStage.movesTable -->")
        #expect(table == JobStage.movesTable)
    }

    @Test func everyStageIsReachedAndLeftButSettled() {
        for stage in JobStage.allCases where stage != .claimed {
            #expect(JobStage.moves.contains { $0.to == stage && $0.from != stage }, "nothing leads to \(stage)")
        }
        for stage in JobStage.allCases {
            let leaves = JobStage.moves.contains { $0.from == stage && $0.to != stage }
            #expect(leaves == (stage != .settled), "\(stage)")
        }
    }

    @Test func aSettledJobMovesNoMoreAndNothingSkipsItsRun() {
        for stage in JobStage.allCases {
            #expect(!JobStage.allows(from: .settled, to: stage))
        }
        // A job is acknowledged only after its task succeeded, and runs again only after a backoff.
        #expect(!JobStage.allows(from: .claimed, to: .awaitingFlush))
        #expect(!JobStage.allows(from: .waitingForDependencies, to: .awaitingFlush))
        #expect(!JobStage.allows(from: .waitingForRetry, to: .awaitingFlush))
        #expect(!JobStage.allows(from: .awaitingFlush, to: .queued))
        #expect(JobStage.allows(from: .queued, to: .awaitingFlush))
    }
}
