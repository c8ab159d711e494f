import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a test that runs a daemon: a safety net for a hang, not a speed target.
    ///
    /// Two minutes, not one: such a test waits for the daemon on the cooperative pool, which has
    /// as many threads as cores (two here), and the long synchronous tests of other suites
    /// (the store's concurrency tests, say) can hold both for a minute under ThreadSanitizer. The
    /// tests that restart a daemon took 70–90 s there while each alone takes 0.2 s.
    static var daemonTestTimeLimit: Self { .timeLimit(.minutes(2)) }
}
