import Foundation
public import LineupSpool

extension JobTester {
    /// The job of `kind` waiting in the spool whose parameters hold `parameters`: each of its
    /// fields, with an equal value (a subset match, as Oban.Testing's `assert_enqueued`: a job
    /// with more parameters matches). Nested objects match the same way; arrays must be equal.
    ///
    /// ```swift
    /// try await tester.run("import-buoy", ["input": "obs/41001.xml"])
    /// try tester.assertEnqueued(kind: "statistics", parameters: ["output": "stats"])
    /// ```
    ///
    /// It reads the jobs in the spool (``enqueued()``): those a `JobClient` wrote, and those a
    /// task enqueued with its data once the flush that writes them is done (``run(_:attempt:)``
    /// flushes).
    ///
    /// - Parameters:
    ///   - kind: the job kind to look for, e.g. `"statistics"`.
    ///   - parameters: any `Encodable` that encodes as a JSON object: a dictionary, or
    ///     the kind's own parameters type.
    /// - Returns: the first matching job, in the order they were enqueued.
    /// - Throws: ``JobTesterError`` naming every job enqueued when none matches.
    @discardableResult
    public func assertEnqueued(kind: String, parameters: some Encodable) throws -> JobFile {
        let expected = try Self.jsonObject(parameters)
        let jobs = try enqueued()
        guard let job = Self.first(in: jobs, kind: kind, holding: expected) else {
            throw JobTesterError(
                "no job \(kind) with parameters \(Self.text(.object(expected))) is enqueued; enqueued: \(Self.list(jobs))")
        }
        return job
    }

    /// The job of `kind` waiting in the spool, whatever its parameters (see
    /// ``assertEnqueued(kind:parameters:)``).
    @discardableResult
    public func assertEnqueued(kind: String) throws -> JobFile {
        try assertEnqueued(kind: kind, parameters: [String: JSONValue]())
    }

    /// Throws when a job of `kind` whose parameters hold `parameters` is waiting in the spool:
    /// the opposite of ``assertEnqueued(kind:parameters:)``.
    ///
    /// - Throws: ``JobTesterError`` naming the job that matched.
    public func assertNotEnqueued(kind: String, parameters: some Encodable) throws {
        let expected = try Self.jsonObject(parameters)
        if let job = Self.first(in: try enqueued(), kind: kind, holding: expected) {
            throw JobTesterError("a job \(kind) with parameters \(Self.text(.object(expected))) is enqueued: \(Self.list([job]))")
        }
    }

    /// Throws when any job of `kind` is waiting in the spool.
    public func assertNotEnqueued(kind: String) throws {
        try assertNotEnqueued(kind: kind, parameters: [String: JSONValue]())
    }

    private static func jsonObject(_ parameters: some Encodable) throws -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(parameters))
        } catch {
            throw JobTesterError("cannot encode the expected parameters \(parameters) as JSON: \(error)")
        }
        guard case let .object(fields) = value else {
            throw JobTesterError("the expected parameters \(parameters) are not a JSON object")
        }
        return fields
    }

    /// The first of `jobs` of `kind` whose parameters hold `expected`.
    private static func first(in jobs: [JobFile], kind: String, holding expected: [String: JSONValue]) -> JobFile? {
        jobs.first { $0.kind == kind && contains($0.parameters, expected) }
    }

    /// Whether `actual` holds every field of `expected` with a value that matches it.
    private static func contains(_ actual: [String: JSONValue], _ expected: [String: JSONValue]) -> Bool {
        expected.allSatisfy { key, value in actual[key].map { matches($0, value) } ?? false }
    }

    private static func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case let (.object(actual), .object(expected)):
            contains(actual, expected)
        // 3 in a job file and 3.0 from a Double parameter are the same number.
        case let (.integer(actual), .number(expected)):
            Double(actual) == expected
        case let (.number(actual), .integer(expected)):
            actual == Double(expected)
        default:
            actual == expected
        }
    }

    private static func list(_ jobs: [JobFile]) -> String {
        guard !jobs.isEmpty else { return "none" }
        return jobs.map { "\($0.kind) \(text(.object($0.parameters)))" }.joined(separator: "; ")
    }

    private static func text(_ value: JSONValue) -> String {
        (try? JSONTextWriter.text(of: value, style: .compact)).map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }
}
