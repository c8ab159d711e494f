public import LineupSpool
import LineupStore

/// The kinds and queues paused on a database (`lineup pause --database`): rows of
/// `lineup_paused`, which every daemon's claim statement reads, so that no daemon claims a job of
/// one once the pause has committed. Jobs running go on.
extension JobDatabase {
    /// What is paused now, sorted.
    public func pausedScopes() throws -> [JobScope] {
        try sessions.withSession { session in
            try session.rows("SELECT scope, name FROM lineup_paused ORDER BY scope, name").compactMap { row in
                guard case let .text(level) = row[0], let level = JobScope.Level(rawValue: level), case let .text(name) = row[1]
                else { return nil }
                return JobScope(level, name)
            }
        }
    }

    /// Pauses `scope`; returns false when it was paused already.
    @discardableResult
    public func pause(_ scope: JobScope) throws -> Bool {
        try sessions.withSession { session in
            try session.execute(
                "INSERT INTO lineup_paused (scope, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [.text(scope.level.rawValue), .text(scope.name)]) == 1
        }
    }

    /// Resumes `scope` and wakes the daemons, in one transaction; returns false when it was not
    /// paused.
    @discardableResult
    public func resume(_ scope: JobScope) throws -> Bool {
        try sessions.withSession { session in
            try session.transaction {
                let removed = try session.execute(
                    "DELETE FROM lineup_paused WHERE scope = $1 AND name = $2", [.text(scope.level.rawValue), .text(scope.name)])
                if removed > 0 { try session.execute(Self.notification) }
                return removed == 1
            }
        }
    }
}
