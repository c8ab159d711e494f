import Foundation
import LineupSpool
import Testing

@Suite("Job file format")
struct JobFileTests {
    struct ImportParameters: Decodable, Equatable {
        let input: String
    }

    struct ExportParameters: Decodable, Equatable {
        let entity: String
        let output: String
        let batchSize: Int?
    }

    @Test("a job with every common field and its own parameters")
    func parsesEveryField() throws {
        let job = try JobFile(data: jobData("""
            {"kind": "import-buoy", "input": "obs/42002.rss", "id": "buoy-42002",
             "after": ["seed", "stations"], "maxAttempts": 5, "baseDelay": 0.5, "timeout": 90}
            """))
        #expect(job.kind == "import-buoy")
        #expect(job.id == "buoy-42002")
        #expect(job.after == ["seed", "stations"])
        #expect(job.maxAttempts == 5)
        #expect(job.baseDelay == .milliseconds(500))
        #expect(job.timeout == .seconds(90))
        #expect(job.parameters == ["input": "obs/42002.rss"])
        #expect(try job.parameters(as: ImportParameters.self) == ImportParameters(input: "obs/42002.rss"))
    }

    @Test("only kind is required; absent and null optional fields take their defaults")
    func appliesDefaults() throws {
        for text in [#"{"kind": "statistics"}"#, #"{"kind": "statistics", "id": null, "after": null, "maxAttempts": null}"#] {
            let job = try JobFile(data: jobData(text))
            #expect(job.kind == "statistics")
            #expect(job.id == nil)
            #expect(job.after == [])
            #expect(job.maxAttempts == nil)
            #expect(job.baseDelay == nil)
        }
    }

    @Test("fields the format does not know are kept for the kind")
    func keepsUnknownFields() throws {
        let job = try JobFile(data: jobData("""
            {"kind": "export-csv", "entity": "JournalEntry", "output": "journal.csv",
             "options": {"header": true, "columns": ["date", 3, 2.5, null]}}
            """))
        #expect(job.parameters == [
            "entity": "JournalEntry",
            "output": "journal.csv",
            "options": ["header": true, "columns": ["date", 3, 2.5, nil]],
        ])
        #expect(job.fields["kind"] == "export-csv")
        #expect(
            try job.parameters(as: ExportParameters.self)
                == ExportParameters(entity: "JournalEntry", output: "journal.csv", batchSize: nil)
        )
    }

    @Test("a parameter type may read the common fields too")
    func parametersSeeCommonFields() throws {
        struct WithID: Decodable, Equatable {
            let id: String
            let output: String
        }
        let job = try JobFile(data: jobData(#"{"kind": "statistics", "id": "s1", "output": "stats.json"}"#))
        #expect(try job.parameters(as: WithID.self) == WithID(id: "s1", output: "stats.json"))
    }

    @Test("a missing parameter names the field and the file")
    func missingParameter() throws {
        let job = try JobFile(data: jobData(#"{"kind": "import-buoy"}"#), path: "/spool/active/a.job.json")
        let error = try #require(throws: SpoolError.self) { try job.parameters(as: ImportParameters.self) }
        #expect(error.code == .missingField)
        #expect(error.description == "/spool/active/a.job.json: job file has no `input` field")
    }

    @Test("a parameter of the wrong type names the field and the expected type")
    func wrongParameterType() throws {
        let job = try JobFile(data: jobData(#"{"kind": "import-buoy", "input": 42}"#), path: "a.job.json")
        let error = try #require(throws: SpoolError.self) { try job.parameters(as: ImportParameters.self) }
        #expect(error.code == .invalidField)
        #expect(error.description == "a.job.json: field `input` has the wrong type, expected String")
    }

    @Test("a null parameter counts as missing")
    func nullParameter() throws {
        let job = try JobFile(data: jobData(#"{"kind": "import-buoy", "input": null}"#))
        let error = try #require(throws: SpoolError.self) { try job.parameters(as: ImportParameters.self) }
        #expect(error.code == .missingField)
        #expect(error.description == "field `input` is null, expected String")
    }

    @Test("malformed JSON is reported with its line and column")
    func malformedJSON() throws {
        let error = try #require(throws: SpoolError.self) {
            try JobFile(data: jobData("{\n  \"kind\": \"statistics\",\n  ,\n}"), path: "/spool/new/x.job.json")
        }
        #expect(error.code == .malformedJobFile)
        #expect(error.path == "/spool/new/x.job.json")
        #expect(
            error.description
                == "/spool/new/x.job.json: job file is not valid JSON: Invalid value around character 28 (line 3, column 3)"
        )
    }

    @Test("an empty file is malformed")
    func emptyFile() throws {
        let error = try #require(throws: SpoolError.self) { try JobFile(data: Data(), path: "e.job.json") }
        #expect(error.code == .malformedJobFile)
        #expect(error.description == "e.job.json: job file is not valid JSON: the file is empty")
    }

    @Test("JSON that is not an object is malformed", arguments: [
        ("[1, 2]", "an array"), ("\"kind\"", "a string"), ("3", "an integer"), ("null", "null"),
    ])
    func notAnObject(text: String, found: String) throws {
        let error = try #require(throws: SpoolError.self) { try JobFile(data: jobData(text)) }
        #expect(error.code == .malformedJobFile)
        #expect(error.description == "job file must be a JSON object, found \(found)")
    }

    @Test("a job without kind is refused")
    func missingKind() throws {
        let error = try #require(throws: SpoolError.self) {
            try JobFile(data: jobData(#"{"input": "obs/42002.rss"}"#), path: "/spool/new/k.job.json")
        }
        #expect(error.code == .missingField)
        #expect(
            error.description
                == #"/spool/new/k.job.json: job file has no `kind` field (the job kind, e.g. "import-buoy")"#
        )
    }

    @Test("common fields of the wrong type or value are refused, naming the field", arguments: [
        (#"{"kind": 3}"#, "field `kind` must be a string, found an integer"),
        (#"{"kind": ""}"#, "field `kind` must not be empty"),
        (#"{"kind": "k", "id": true}"#, "field `id` must be a string, found a boolean"),
        (#"{"kind": "k", "id": ""}"#, "field `id` must not be empty"),
        (#"{"kind": "k", "after": "a"}"#, "field `after` must be an array of job ids, found a string"),
        (#"{"kind": "k", "after": ["a", 1]}"#, "field `after[1]` must be a string (a job id), found an integer"),
        (#"{"kind": "k", "maxAttempts": "3"}"#, "field `maxAttempts` must be an integer, found a string"),
        (#"{"kind": "k", "uniqueKey": ""}"#, "field `uniqueKey` must not be empty"),
        (#"{"kind": "k", "uniqueKey": 7}"#, "field `uniqueKey` must be a string, found an integer"),
        (#"{"kind": "k", "maxAttempts": 2.5}"#, "field `maxAttempts` must be an integer, found a number"),
        (#"{"kind": "k", "maxAttempts": 0}"#, "field `maxAttempts` must be at least 1"),
        (#"{"kind": "k", "baseDelay": "1s"}"#, "field `baseDelay` must be a number of seconds, found a string"),
        (#"{"kind": "k", "baseDelay": -1}"#, "field `baseDelay` must be a finite number of seconds, 0 or more"),
        (#"{"kind": "k", "timeout": "10m"}"#, "field `timeout` must be a number of seconds, found a string"),
        (#"{"kind": "k", "timeout": 0}"#, "field `timeout` must be a number of seconds above 0 and at most a year, found 0.0"),
        (#"{"kind": "k", "timeout": 1e12}"#, "field `timeout` must be a number of seconds above 0 and at most a year, found 1000000000000.0"),
    ])
    func wrongTypes(text: String, message: String) throws {
        let error = try #require(throws: SpoolError.self) { try JobFile(data: jobData(text), path: "w.job.json") }
        #expect(error.code == .invalidField)
        #expect(error.description == "w.job.json: \(message)")
    }

    @Test("a producer's job encodes to compact JSON with sorted keys and reads back equal")
    func encodesForProducers() throws {
        let job = try JobFile(
            kind: "import-buoy",
            id: "buoy-42002",
            after: ["stations"],
            maxAttempts: 5,
            baseDelay: .milliseconds(1500),
            parameters: ["input": "obs/42002.rss"]
        )
        let data = try job.encoded()
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"after":["stations"],"baseDelay":1.5,"id":"buoy-42002","input":"obs/42002.rss","kind":"import-buoy","maxAttempts":5}"#
        )
        let read = try JobFile(data: data)
        #expect(read == job)
        #expect(try read.parameters(as: ImportParameters.self) == ImportParameters(input: "obs/42002.rss"))
        #expect(try job.parameters(as: ImportParameters.self) == ImportParameters(input: "obs/42002.rss"))
    }

    @Test("a producer's parameter may not reuse a common field name")
    func refusesClashingParameters() throws {
        let error = try #require(throws: SpoolError.self) {
            try JobFile(kind: "statistics", parameters: ["maxAttempts": 3, "output": "s.json"])
        }
        #expect(error.code == .invalidField)
        #expect(error.description == "parameter `maxAttempts` clashes with the common job field of that name")
    }

    @Test("a producer's invalid common value is refused")
    func refusesInvalidCommonValues() throws {
        let error = try #require(throws: SpoolError.self) { try JobFile(kind: "statistics", maxAttempts: 0) }
        #expect(error.code == .invalidField)
        #expect(error.description == "field `maxAttempts` must be at least 1")
    }

    @Test("equality ignores spacing and key order")
    func equalityIgnoresLayout() throws {
        let compact = try JobFile(data: jobData(#"{"kind":"statistics","output":"stats.json"}"#))
        let spaced = try JobFile(data: jobData("{ \"output\" : \"stats.json\",\n \"kind\" : \"statistics\" }"))
        let other = try JobFile(data: jobData(#"{"kind":"statistics","output":"other.json"}"#))
        #expect(compact == spaced)
        #expect(compact.hashValue == spaced.hashValue)
        #expect(compact != other)
    }

    @Test("Codable reads and writes the flat object, validating it")
    func codable() throws {
        let job = try JSONDecoder().decode(JobFile.self, from: jobData(#"{"kind":"statistics","output":"s.json"}"#))
        #expect(job.kind == "statistics")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(job), as: UTF8.self) == #"{"kind":"statistics","output":"s.json"}"#)
        let error = try #require(throws: SpoolError.self) {
            try JSONDecoder().decode(JobFile.self, from: jobData(#"{"output":"s.json"}"#))
        }
        #expect(error.code == .missingField)
    }
}

@Suite("JSON numbers")
struct JSONNumberTests {
    // Found by the job-file fuzzer: 11111111111000000.0000000000000006 reads as a Double that is
    // whole, is written back as 11111111111000000, and read again as an integer.
    @Test("a whole number equals the integer it is, and a job file survives encoding with one")
    func wholeNumbers() throws {
        #expect(JSONValue.number(3.0) == .integer(3))
        #expect(JSONValue.integer(3) == .number(3.0))
        #expect(JSONValue.number(-0.0) == .integer(0))
        #expect(JSONValue.number(3.5) != .integer(3))
        #expect(Set<JSONValue>([.number(3.0), .integer(3)]).count == 1)
        let job = try JobFile(data: Data(#"{"kind": "k", "n": 11111111111000000.0000000000000006, "m": 2.0}"#.utf8))
        #expect(try JobFile(data: job.encoded()) == job)
        #expect(job.fields["m"] == .integer(2))
    }

    // Found by the job-file fuzzer: 1.1111111111155555e17 was written in its shortest form,
    // whose digits JSONDecoder reads as the integer 111111111111555550, two off the double.
    @Test("a whole double beyond 2^53 is written as its exact digits, and a job file survives encoding with one",
          arguments: [1.1111111111155555e17, -1.2345678901234568e17, 9_007_199_254_740_994, 9.2233720368547748e18])
    func largeWholeDoubles(number: Double) throws {
        let job = try JobFile(kind: "k", parameters: ["n": .number(number)])
        let text = String(decoding: try job.encoded(), as: UTF8.self)
        #expect(text.contains(String(Int64(exactly: number)!)), "\(text)")
        let read = try JobFile(data: job.encoded())
        #expect(read == job)
        #expect(read.fields["n"] == .integer(Int(exactly: number)!))
    }
}
