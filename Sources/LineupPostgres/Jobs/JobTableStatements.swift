import Foundation
package import LineupJobs

/// The statements that daemons run against the jobs table for every job they claim and settle,
/// on every tick, and when they prune, in one place: what runs is what the query-plan test
/// explains. With a million jobs queued and ten million done, none of them may read the whole
/// table: each goes through an index of ``JobTableMigrations``.
package enum JobTableStatements {
    /// The claim: up to `limit` due jobs (`$2` by default) whose dependencies are settled and whose
    /// kind and queue are not paused (`lineup_paused`, read by the statement itself, so that no
    /// claim that starts after a pause commits takes one of its jobs), for daemon `$1`; `$3` is the
    /// daemon's ``LineupJobs/QueueRouting`` (``ruleArgument(_:)``), which says the queue of each
    /// job (``routedQueue(of:rule:)``); `$4` is the
    /// claim's stamp, which its jobs' `claimed_at` becomes (``claimStampTime(_:)``), by which the
    /// daemon finds the jobs of a claim whose answer was lost (``jobsOfClaim``). `filter` narrows
    /// it further with parameters from `$5` on. Returns ``claimedColumns``.
    package static func claim(filter: String = "", limit: String = "$2") -> String {
        """
        UPDATE lineup_jobs AS j SET state = 'running', claimed_by = $1, claimed_at = \(claimStampTime("$4")), claims = j.claims + 1
        FROM (SELECT id FROM lineup_jobs AS c WHERE state = 'queued' AND not_before <= now()
                  AND (c.after_ids = '{}' OR NOT EXISTS (
                      SELECT 1 FROM unnest(c.after_ids) AS dependency(id) WHERE NOT EXISTS (
                          SELECT 1 FROM lineup_jobs AS d WHERE d.job_id = dependency.id AND d.state IN ('done', 'failed'))))
                  AND NOT EXISTS (SELECT 1 FROM lineup_paused AS p
                      WHERE (p.scope = 'kind' AND p.name = c.kind) OR (p.scope = 'queue' AND p.name = \(routedQueue(of: "c", rule: "$3"))))
                  \(filter)
              ORDER BY priority, not_before, id LIMIT \(limit) FOR UPDATE SKIP LOCKED) AS due
        WHERE j.id = due.id
        RETURNING \(claimedColumns)
        """
    }

    /// The queue that the job of row `alias` runs in, by the rule in parameter `rule`
    /// (``ruleArgument(_:)``): the queue its file names (column `queue`) when the daemon
    /// configures it, else its kind's; NULL: the default queue. ``LineupJobs/QueueRouting``'s
    /// rule, in SQL, from the same value.
    package static func routedQueue(of alias: String, rule: String) -> String {
        "COALESCE(\(rule)::jsonb -> 'queues' ->> \(alias).queue, \(rule)::jsonb -> 'kinds' ->> \(alias).kind)"
    }

    /// `routing` as the JSON text that ``routedQueue(of:rule:)`` reads.
    package static func ruleArgument(_ routing: QueueRouting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(routing.jsonObject)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// What a claim returns of each job, in the order the daemon decodes them.
    static let claimedColumns = """
        j.id, j.name, j.contents, j.claims, j.failed_attempts, j.interruptions,
                  extract(epoch FROM j.not_before)::float8, j.priority::bigint
        """

    /// The time a claim's stamp (microseconds since 1970, in parameter `parameter`) stands for.
    static func claimStampTime(_ parameter: String) -> String {
        "to_timestamp(\(parameter)::bigint / 1000000.0)"
    }

    /// The jobs that daemon `$1` claimed with stamp `$2` and still runs: those of a claim that
    /// threw, whose transaction may have committed all the same. Returns ``claimedColumns``.
    package static let jobsOfClaim = """
        SELECT \(claimedColumns)
        FROM lineup_jobs AS j
        WHERE j.claimed_by = $1 AND j.state = 'running' AND j.claimed_at = \(claimStampTime("$2"))
        """

    /// Deletes the daemons whose lease ran out and gives back their running jobs (`$1`: the poison
    /// threshold), returning each job's row, name and new state.
    package static let rescue = """
        WITH expired AS (DELETE FROM lineup_daemons WHERE lease_expires_at < now() RETURNING id)
        UPDATE lineup_jobs SET
            interruptions = interruptions + 1,
            state = CASE WHEN interruptions + 1 > $1 THEN 'failed' ELSE 'queued' END,
            finished_at = CASE WHEN interruptions + 1 > $1 THEN now() END,
            reason = CASE WHEN interruptions + 1 > $1 THEN
                name || '.job.json: poison: the daemons running it stopped ' || (interruptions + 1)
                || ' times (poisonThreshold ' || $1 || '); not run again' ELSE reason END
        WHERE state = 'running' AND claimed_by IN (SELECT id FROM expired)
        RETURNING id, name, state
        """

    /// Fails the queued jobs that wait for themselves through `after`, returning their names.
    package static let dependencyCycles = """
        WITH RECURSIVE walk(start, id, path) AS (
            SELECT j.id, d.id, ARRAY[j.id]
            FROM lineup_jobs AS j JOIN lineup_jobs AS d ON d.job_id = ANY(j.after_ids) AND d.state = 'queued'
            WHERE j.state = 'queued' AND j.after_ids <> '{}'
          UNION ALL
            SELECT w.start, d.id, w.path || w.id
            FROM walk AS w JOIN lineup_jobs AS j ON j.id = w.id
                 JOIN lineup_jobs AS d ON d.job_id = ANY(j.after_ids) AND d.state = 'queued'
            WHERE w.id <> ALL(w.path)
        )
        UPDATE lineup_jobs SET state = 'failed', finished_at = now(),
            reason = name || '.job.json: dependency cycle: job ' || COALESCE(job_id, name)
                || ' waits, through `after`, for jobs that wait for it'
        WHERE state = 'queued' AND id IN (SELECT start FROM walk WHERE id = start)
        RETURNING name
        """

    /// Fails the queued jobs whose `after` names an id that no job has had for `$1` seconds
    /// since they were enqueued, returning their names.
    package static let unknownDependencies = """
        UPDATE lineup_jobs AS j SET state = 'failed', finished_at = now(),
            reason = j.name || '.job.json: unknown dependency: no job with id ' || missing.ids
                || ' (named in `after`) was queued, running, done or failed within ' || $1 || ' s'
        FROM (SELECT c.id, string_agg(dependency.id, ', ' ORDER BY dependency.id) AS ids
              FROM lineup_jobs AS c CROSS JOIN LATERAL unnest(c.after_ids) AS dependency(id)
              WHERE c.state = 'queued' AND c.after_ids <> '{}'
                AND c.enqueued_at < now() - make_interval(secs => $1)
                AND NOT EXISTS (SELECT 1 FROM lineup_jobs AS d WHERE d.job_id = dependency.id)
              GROUP BY c.id) AS missing
        WHERE j.id = missing.id AND j.state = 'queued'
        RETURNING j.name
        """

    /// Sets done the jobs of `$1` (a JSON array of their rows, claims and reports) that daemon `$2`
    /// holds.
    package static let acknowledgement = """
        UPDATE lineup_jobs AS j SET state = 'done', finished_at = now(), report = v.report
        FROM jsonb_to_recordset($1::jsonb) AS v(id bigint, claims integer, report text)
        WHERE j.id = v.id AND j.claims = v.claims AND j.claimed_by = $2 AND j.state = 'running'
        """

    /// How many of the jobs of `$1` (a JSON array of their rows and claims, as the acknowledgement
    /// names them) are done under daemon `$2`'s claims: one or more when a flush that threw had
    /// committed all the same, since its acknowledgement settles all of them in its transaction.
    package static let acknowledgedJobsDone = """
        SELECT count(*) FROM lineup_jobs AS j, jsonb_to_recordset($1::jsonb) AS v(id bigint, claims integer)
        WHERE j.id = v.id AND j.claims = v.claims AND j.claimed_by = $2 AND j.state = 'done'
        """

    /// Notifies the daemons (channel `lineup_jobs`) when a queued job waits, through `after`,
    /// for one of the ids of `$1` (a JSON array): what a flush that acknowledged those jobs runs.
    package static let notifyWaiters = """
        SELECT pg_notify('\(JobDatabase.channel)', '') WHERE EXISTS (
            SELECT 1 FROM lineup_jobs AS w
            WHERE w.state = 'queued' AND w.after_ids <> '{}' AND w.after_ids && ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
        """

    /// The update of one claimed job's row: `$1` the row, `$2` its claims, `$3` the daemon.
    package static func settle(_ assignments: String) -> String {
        "UPDATE lineup_jobs SET \(assignments) WHERE id = $1 AND claims = $2 AND claimed_by = $3 AND state = 'running'"
    }

    /// The names of daemon `$1`'s running jobs that an operator asked to cancel.
    package static let cancellationRequests = """
        SELECT name FROM lineup_jobs
        WHERE claimed_by = $1 AND state = 'running' AND cancel_requested_at IS NOT NULL ORDER BY id
        """

    /// One batch of a prune: up to `$2` done jobs that finished before `$1` (epoch seconds),
    /// oldest first (`lineup_jobs_done_finished`). The ids that waiting jobs name are read once
    /// (`lineup_jobs_waiting`, the jobs whose `after` is not empty), not once a row.
    package static let prune = """
        WITH needed AS (
            SELECT DISTINCT dependency.id FROM lineup_jobs AS w CROSS JOIN LATERAL unnest(w.after_ids) AS dependency(id)
            WHERE w.state IN ('queued', 'running') AND w.after_ids <> '{}' AND dependency.id IS NOT NULL
        ), batch AS (
            SELECT j.id FROM lineup_jobs AS j
            WHERE j.state = 'done' AND j.finished_at < to_timestamp($1)
                AND (j.job_id IS NULL OR j.job_id NOT IN (SELECT id FROM needed))
            ORDER BY j.finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
        )
        DELETE FROM lineup_jobs WHERE id IN (SELECT id FROM batch)
        """
}
