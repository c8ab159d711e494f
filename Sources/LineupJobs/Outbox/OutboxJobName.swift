import Foundation
import LineupStore
import LineupSpool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name under which a job enqueued with the data goes into the spool, drawn when it is
/// enqueued and kept with it in the outbox: `20261126T221530123456Z-outbox-<16 hex digits>`.
///
/// The name is what makes the move into the spool happen once: a move that a crash cut short is
/// finished, or found done, by the job of that name in the spool. So it is unique (64 random
/// bits beside the time), and never reused, unlike an outbox row's id (SQLite hands out the ids
/// of deleted rows again). It starts with the UTC time, so that such jobs sort among the spool's
/// own names roughly by when they were enqueued (after the spool's names of the same second);
/// and it has no `.`, which the spool keeps for its tags.
enum OutboxJobName {
    /// A job, encoded, as the message that carries it through the outbox.
    static func message(for job: JobFile, now: Date = Date()) throws(SpoolError) -> OutboxMessage {
        OutboxMessage(channel: OutboxMessage.jobChannel, key: next(now: now), body: try job.encoded())
    }

    static func next(now: Date = Date()) -> String {
        let microseconds = Int64((now.timeIntervalSince1970 * 1_000_000).rounded(.down))
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02d%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(microseconds % 1_000_000))
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "\(stamp)-outbox-\(String(repeating: "0", count: 16 - random.count))\(random)"
    }
}
