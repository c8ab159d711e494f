import Foundation
import LineupSpool
import LineupTestSupport
import Testing

/// A job's parameters (``JobFile/parameters(as:)``) must be what `JSONDecoder` makes of the
/// file's text, and fail where it fails.
struct JobParametersTests {
    struct Scalars: Decodable, Equatable {
        let a: String
        let b: Int
        let c: Double
        let d: Bool
    }

    struct Optionals: Decodable, Equatable {
        let a: String?
        let b: Int?
        let c: Double?
        let d: [Int]?
    }

    struct Narrow: Decodable, Equatable {
        let a: Int8?
        let b: UInt16?
        let c: Float?
        let d: UInt64?
    }

    struct Nested: Decodable, Equatable {
        struct Inner: Decodable, Equatable {
            let a: Int?
            let b: [Bool?]?
        }
        let a: [String: Int]?
        let b: [[Double]]?
        let c: Inner?
        let d: Set<String>?
    }

    struct FreeForm: Decodable, Equatable {
        let a: JSONValue?
        let b: [String: JSONValue]?
        let c: [JSONValue]?
        let d: JSONValue?
    }

    struct FoundationTypes: Decodable, Equatable {
        let a: Date?
        let b: URL?
        let c: Data?
        let d: Decimal?
    }

    enum Mode: String, Decodable, Equatable {
        case fast, slow
    }

    struct RawValues: Decodable, Equatable {
        let a: Mode?
        let b: Int32?
        let c: [Double?]?
        let d: String?
    }

    /// Tells the decoding errors apart, as a hand-written `init(from:)` may.
    enum Attempt: Decodable, Equatable {
        case integer(Int), null, mismatch, other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            do {
                self = .integer(try container.decode(Int.self))
            } catch DecodingError.valueNotFound {
                self = .null
            } catch DecodingError.typeMismatch {
                self = .mismatch
            } catch {
                self = .other
            }
        }
    }

    struct Attempts: Decodable, Equatable {
        let a: [Attempt]
    }

    /// Decodes `text` both ways, as a job file's parameters and with `JSONDecoder`: the answers
    /// must be equal, or both must fail. Returns whether the parameters were decoded.
    @discardableResult
    static func compare<T: Decodable & Equatable>(_ type: T.Type, _ text: String) -> Bool {
        let data = Data(text.utf8)
        guard let file = try? JobFile(data: data) else { return false }
        let reference = try? JSONDecoder().decode(T.self, from: data)
        guard let decoded = try? file.parameters(as: T.self) else {
            if let reference {
                Issue.record("the parameters fail where JSONDecoder reads \(reference): \(T.self) from \(text)")
            }
            return false
        }
        guard let reference else {
            Issue.record("JSONDecoder fails where the parameters decode: \(T.self) from \(text)")
            return true
        }
        #expect(reference == decoded, "\(T.self) from \(text)")
        // Equality takes -0.0 for 0.0; the descriptions tell them apart (where no set or
        // dictionary puts its elements in an order of its own).
        if !(T.self is Nested.Type || T.self is FreeForm.Type) {
            #expect(String(describing: reference) == String(describing: decoded), "\(T.self) from \(text)")
        }
        return true
    }

    @Test func plainParametersAreDecodedAsJSONDecoderDecodesTheText() throws {
        #expect(Self.compare(Scalars.self, #"{"kind":"k","a":"é\n\"x\"","b":-42,"c":0.1,"d":true}"#))
        #expect(Self.compare(Scalars.self, #"{"kind":"k","a":"","b":-4503599627370496,"c":-1.25e-300,"d":false,"e":[1]}"#))
        #expect(Self.compare(Optionals.self, #"{"kind":"k","a":null,"d":[1,2,3]}"#))
        #expect(Self.compare(Nested.self, #"{"kind":"k","a":{"x":1,"y":-2},"b":[[0.5],[]],"c":{"b":[true,null]},"d":["p","q"]}"#))
        #expect(Self.compare(RawValues.self, #"{"kind":"k","a":"slow","b":-2147483648,"c":[null,2.5]}"#))
        #expect(Self.compare(FreeForm.self, #"{"kind":"k","a":7,"b":{"x":"y","z":[true,null]},"c":[]}"#))
        // A type that catches errors sees the same ones: no value for null, a mismatch for the rest.
        #expect(Self.compare(Attempts.self, #"{"kind":"k","a":[1,null,"x",true,[],{}]}"#))
        // An integer that a Double holds exactly is the Double JSONDecoder reads, and a whole
        // number in any spelling is the integer JSONDecoder reads.
        #expect(Self.compare(Scalars.self, #"{"kind":"k","a":"","b":1,"c":3,"d":true}"#))
        #expect(Self.compare(Scalars.self, #"{"kind":"k","a":"","b":3.0,"c":1e2,"d":true}"#))
        #expect(Self.compare(Narrow.self, #"{"kind":"k","a":-1.0e2,"b":65535,"d":2e1}"#))

        let file = try JobFile(data: Data(#"{"kind":"k","a":"x","b":2,"c":2.5,"d":false}"#.utf8))
        #expect(try file.parameters(as: Scalars.self) == Scalars(a: "x", b: 2, c: 2.5, d: false))
    }

    @Test(arguments: [
        // A fraction where an integer is wanted: JSONDecoder words the error.
        #"{"kind":"k","a":"","b":1.5,"c":1.5,"d":true}"#,
        // 0 into a Double: JSONDecoder reads -0 as -0.0.
        #"{"kind":"k","a":"","b":1,"c":-0,"d":true}"#,
        // Past 2^53 a Double does not hold every integer.
        #"{"kind":"k","a":"","b":1,"c":9007199254740993,"d":true}"#,
    ])
    func numbersAreReadAsJSONDecoderReadsThem(text: String) throws {
        // Through the job file, JSONDecoder's answer (or error) is what comes back.
        let file = try JobFile(data: Data(text.utf8))
        let reference = Result { try JSONDecoder().decode(Scalars.self, from: Data(text.utf8)) }
        switch reference {
        case let .success(value): #expect(try file.parameters(as: Scalars.self) == value)
        case .failure: #expect(throws: SpoolError.self) { try file.parameters(as: Scalars.self) }
        }
    }

    @Test func foundationTypesFloatsAndOutOfRangeIntegersAreReadAsJSONDecoderReadsThem() throws {
        Self.compare(FoundationTypes.self, #"{"kind":"k","a":1000,"b":"https://x.org","c":"AAE=","d":1.5}"#)
        Self.compare(Narrow.self, #"{"kind":"k","a":128}"#)
        Self.compare(Narrow.self, #"{"kind":"k","c":1}"#)
        // JSONValue tries an integer before a number.
        Self.compare(FreeForm.self, #"{"kind":"k","a":2.5}"#)
    }

    @Test func aMissingOrMistypedFieldFailsWithJSONDecodersErrorNamingTheField() throws {
        let missing = try JobFile(data: Data(#"{"kind":"k","a":"x","b":2,"c":2.5}"#.utf8), path: "new/j.job.json")
        let error = try #require(throws: SpoolError.self) { try missing.parameters(as: Scalars.self) }
        #expect(error.code == .missingField)
        #expect(error.message.contains("`d`"))
        let mistyped = try JobFile(data: Data(#"{"kind":"k","a":"x","b":"2","c":2.5,"d":true}"#.utf8), path: "new/j.job.json")
        let mistypedError = try #require(throws: SpoolError.self) { try mistyped.parameters(as: Scalars.self) }
        #expect(mistypedError.code == .invalidField)
        #expect(mistypedError.message.contains("`b`"))
    }

    /// Random objects of every kind of value, in every probe type: the parameters are what
    /// JSONDecoder reads, and some of them decode.
    @Test func randomObjectsDecodeAsJSONDecoderDecodesThem() {
        var random = SeededRandom(seed: 0xF1E1_D0EC_0DE5)
        let scalars = [
            "0", "-0", "1", "-1", "7", "127", "128", "-129", "255", "256", "65535", "65536", "2147483647", "-2147483649",
            "9007199254740992", "9007199254740993", "9223372036854775807", "-9223372036854775808",
            "0.0", "-0.0", "1.0", "1.5", "-2.25", "1e2", "1E-7", "0.1", "3.141592653589793", "1e300", "-1e-300", "2.5e+3",
            "true", "false", "null", #""""#, #""fast""#, #""slow""#, #""é\u00e9\n""#, #""\ud83c\udf0a""#, #""1000""#,
            #""https://x.org/a?b""#, #""AAE=""#,
        ]
        func value(depth: Int) -> String {
            switch random.next() % (depth > 2 ? 1 : 4) {
            case 1:
                let count = Int(random.next() % 4)
                return "[" + (0..<count).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            case 2:
                let keys = ["a", "b", "x"].filter { _ in random.next() % 2 == 0 }
                return "{" + keys.map { #""\#($0)":\#(value(depth: depth + 1))"# }.joined(separator: ",") + "}"
            default:
                return scalars[Int(random.next() % UInt64(scalars.count))]
            }
        }
        var answered = 0
        var cases = 0
        for _ in 0..<3_000 {
            let keys = ["a", "b", "c", "d"].filter { _ in random.next() % 4 != 0 }
            let text = "{" + ([#""kind":"k""#] + keys.map { #""\#($0)":\#(value(depth: 0))"# }).joined(separator: ",") + "}"
            for answer in [
                Self.compare(Scalars.self, text), Self.compare(Optionals.self, text), Self.compare(Narrow.self, text),
                Self.compare(Nested.self, text), Self.compare(FreeForm.self, text), Self.compare(FoundationTypes.self, text),
                Self.compare(RawValues.self, text),
            ] {
                cases += 1
                if answer { answered += 1 }
            }
        }
        // Most random objects fail every probe type; what matters above is that no answer
        // differs. This only checks that the comparison is not empty.
        #expect(answered > cases / 50, "\(answered) answers of \(cases)")
    }
}
