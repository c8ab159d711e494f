public import LineupSpool

/// What a job did, returned by ``JobTask/run(in:)`` and written into its result report
/// (`done/<stem>.result.json`, under `details`).
///
/// ```swift
/// return JobOutcome(
///     summary: "imported 1440 observations of 42002",
///     counts: ["observations": 1440, "skipped": 3],
///     outputs: [],
///     details: ["station": "42002"])
/// ```
public struct JobOutcome: Sendable, Hashable {
    /// One line for people.
    public var summary: String
    /// Counts of what the job did (rows inserted, values skipped, ...).
    public var counts: [String: Int]
    /// Files the job wrote, as paths relative to the output directory or absolute.
    public var outputs: [String]
    /// Anything else the kind reports.
    public var details: [String: JSONValue]

    /// Makes an outcome; only the summary is required, the rest is empty by default.
    public init(
        summary: String, counts: [String: Int] = [:], outputs: [String] = [],
        details: [String: JSONValue] = [:]
    ) {
        self.summary = summary
        self.counts = counts
        self.outputs = outputs
        self.details = details
    }

    /// The report's `details`: `summary`, `counts` and `outputs`, then the kind's own details
    /// (which may not replace those three).
    public var reportDetails: [String: JSONValue] {
        var result = details
        result["summary"] = .string(summary)
        result["counts"] = .object(counts.mapValues { .integer($0) })
        result["outputs"] = .array(outputs.map { .string($0) })
        return result
    }
}
