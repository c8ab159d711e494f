import Foundation
import LineupJobs
import Logging
import Testing

@Suite struct JSONLogHandlerTests {
    /// Logs through a handler into a pipe and returns the lines, each parsed as a JSON object.
    func lines(_ body: (Logger) -> Void) throws -> [[String: Any]] {
        let pipe = Pipe()
        var logger = Logger(label: "test") { JSONLogHandler(label: $0, fileDescriptor: pipe.fileHandleForWriting.fileDescriptor) }
        logger[metadataKey: "job"] = "nightly"
        body(logger)
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test("one JSON object per line, with the time, level, label, message and the metadata beside them")
    func oneObjectPerLine() throws {
        let lines = try lines { logger in
            logger.info("job started", metadata: ["kind": "import-buoy", "attempt": "1"])
            logger.warning("a \"quoted\"\nmessage\twith\u{1}controls", metadata: ["nested": ["a": ["1", "2"]]])
        }
        try #require(lines.count == 2)
        #expect(lines[0]["level"] as? String == "info")
        #expect(lines[0]["label"] as? String == "test")
        #expect(lines[0]["message"] as? String == "job started")
        #expect(lines[0]["job"] as? String == "nightly")
        #expect(lines[0]["kind"] as? String == "import-buoy")
        #expect(lines[0]["attempt"] as? String == "1")
        let time = try #require(lines[0]["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/) != nil, "\(time)")
        #expect(lines[1]["message"] as? String == "a \"quoted\"\nmessage\twith\u{1}controls")
        #expect((lines[1]["nested"] as? [String: [String]]) == ["a": ["1", "2"]])
    }

    @Test("metadata named like a field of the line is kept under metadata.<key>")
    func reservedKeys() throws {
        let lines = try lines { logger in
            logger.info("hello", metadata: ["message": "shadow", "level": "shadow"])
        }
        #expect(lines[0]["message"] as? String == "hello")
        #expect(lines[0]["metadata.message"] as? String == "shadow")
        #expect(lines[0]["metadata.level"] as? String == "shadow")
    }
}
