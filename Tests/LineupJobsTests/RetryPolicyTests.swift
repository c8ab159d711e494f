import LineupJobs
import Testing
import LineupTestSupport

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(60))

    @Test func ceilingDoublesFromTheBaseDelay() {
        #expect(policy.backoffCeiling(afterAttempt: 1) == .seconds(1))
        #expect(policy.backoffCeiling(afterAttempt: 2) == .seconds(2))
        #expect(policy.backoffCeiling(afterAttempt: 3) == .seconds(4))
        #expect(policy.backoffCeiling(afterAttempt: 6) == .seconds(32))
    }

    @Test func ceilingIsCappedAtTheMaximumDelay() {
        #expect(policy.backoffCeiling(afterAttempt: 7) == .seconds(60))
        #expect(policy.backoffCeiling(afterAttempt: 8) == .seconds(60))
        // Far past the point where 2^(n-1) overflows a 64-bit integer.
        #expect(policy.backoffCeiling(afterAttempt: 500) == .seconds(60))
        #expect(policy.backoffCeiling(afterAttempt: .max) == .seconds(60))
    }

    @Test func fullJitterSpansZeroToTheCeiling() {
        #expect(policy.delay(afterAttempt: 3, jitter: 0) == .zero)
        #expect(policy.delay(afterAttempt: 3, jitter: 0.5) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, jitter: 0.25) == .seconds(1))
        let nearlyOne = policy.delay(afterAttempt: 3, jitter: 0.999_999)
        #expect(nearlyOne < .seconds(4))
        #expect(nearlyOne >= .milliseconds(3999))
    }

    @Test func jitterOutsideTheUnitRangeIsClamped() {
        #expect(policy.delay(afterAttempt: 2, jitter: -3) == .zero)
        #expect(policy.delay(afterAttempt: 2, jitter: 7) == .seconds(2))
    }

    @Test func everyDelayLiesBetweenZeroAndTheCeiling() {
        var generator = SeededRandom(seed: 42)
        for attempt in 1...12 {
            for _ in 0..<50 {
                let jitter = Double.random(in: 0..<1, using: &generator)
                let delay = policy.delay(afterAttempt: attempt, jitter: jitter)
                #expect(delay >= .zero)
                #expect(delay <= policy.backoffCeiling(afterAttempt: attempt))
            }
        }
    }

    @Test func zeroBaseDelayMeansNoWait() {
        let immediate = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .seconds(10))
        #expect(immediate.backoffCeiling(afterAttempt: 4) == .zero)
        #expect(immediate.delay(afterAttempt: 4, jitter: 0.9) == .zero)
    }

    @Test func attemptsAreCountedFromOne() {
        #expect(policy.allowsRetry(afterAttempt: 1))
        #expect(policy.allowsRetry(afterAttempt: 4))
        #expect(!policy.allowsRetry(afterAttempt: 5))
        #expect(!RetryPolicy(maxAttempts: 1).allowsRetry(afterAttempt: 1))
    }

    @Test func jobFileOverridesAttemptsAndBaseDelay() {
        let overridden = policy.overridden(maxAttempts: 2, baseDelay: .milliseconds(250))
        #expect(overridden.maxAttempts == 2)
        #expect(overridden.baseDelay == .milliseconds(250))
        #expect(overridden.maxDelay == .seconds(60))
        #expect(policy.overridden(maxAttempts: nil, baseDelay: nil) == policy)
        // A base delay above the cap raises the cap: the job asked for at least that long.
        #expect(policy.overridden(maxAttempts: nil, baseDelay: .seconds(90)).maxDelay == .seconds(90))
    }
}
