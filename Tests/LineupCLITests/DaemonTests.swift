import Testing

/// The suites that start `lineupd`. Nested in one serialized suite so that no two daemons
/// compete for the machine's cores at once (their timeouts stay meaningful), and each test
/// kills what it started (``withSandbox(_:)``).
@Suite("lineupd as a child process", .serialized)
enum DaemonTests {}
