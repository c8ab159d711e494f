import Foundation
import Hummingbird
import LineupLocking
import Logging
import NIOCore

/// An OTLP/HTTP receiver on 127.0.0.1, on a port the system picks: it takes what an exporter
/// POSTs to `/v1/traces` and keeps the spans, for a test to read as a collector would show them.
/// It decodes as the OTLP specification says, and as the OpenTelemetry Collector does:
/// - protobuf (`application/x-protobuf`), by the OpenTelemetry project's own generated code
///   (PyPI's `opentelemetry-proto`, which `.ci/run` installs), not by a decoder of ours;
/// - JSON (`application/json`), whose trace and span ids must be hex: a request with ids in
///   base64 (protobuf's JSON mapping) is answered 400, as the Collector answers it, and its
///   spans are not kept.
final class OTLPReceiver: Sendable {
    /// A span as the receiver read it. Ids are lower-case hex.
    struct Span: Sendable, CustomStringConvertible {
        let name: String
        let traceID: String
        let spanID: String
        /// Empty for a root span.
        let parentSpanID: String
        /// Each attribute's value as text (OTLP's JSON writes 64-bit integers as strings).
        let attributes: [String: String]
        /// 0 unset, 1 ok, 2 error.
        let statusCode: Int

        var description: String {
            "\(name) trace=\(traceID) span=\(spanID) parent=\(parentSpanID) status=\(statusCode) \(attributes.sorted { $0.key < $1.key })"
        }
    }

    let port: Int
    private let received: Locked<[Span]>
    private let running: Task<Void, any Error>

    private init(port: Int, received: Locked<[Span]>, running: Task<Void, any Error>) {
        self.port = port
        self.received = received
        self.running = running
    }

    /// The base URL to give an exporter (`--otel-endpoint`).
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The spans received so far.
    var spans: [Span] { received.withLock { $0 } }

    /// Starts a receiver; returns once it listens.
    static func start() async throws -> OTLPReceiver {
        let received = Locked<[Span]>([])
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = Data(try await request.body.collect(upTo: 16 << 20).readableBytesView)
            let spans: [Span]
            do {
                if request.headers[.contentType]?.hasPrefix("application/x-protobuf") == true {
                    spans = try Self.spans(inProtobuf: body)
                } else {
                    spans = try Self.spans(inJSON: body)
                }
            } catch {
                return Response(
                    status: .badRequest, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "\(error)")))
            }
            received.withLock { $0.append(contentsOf: spans) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        var logger = Logger(label: "otlp-receiver")
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "otlp-receiver"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw HarnessError("the OTLP receiver did not start")
        }
        return OTLPReceiver(port: port, received: received, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
    }

    /// The spans of an `ExportTraceServiceRequest` in protobuf, decoded by `opentelemetry-proto`
    /// (in a `python3` of its own) into the JSON encoding, ids in hex.
    static func spans(inProtobuf data: Data) throws -> [Span] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", protobufToJSON]
        let (input, output, errors) = (Pipe(), Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Written from a thread of its own: a large body would fill the pipe while the
        // decoder's answer fills the other.
        let writer = Thread {
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        let failure = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("opentelemetry-proto could not decode the request: \(String(decoding: failure, as: UTF8.self))")
        }
        return try spans(inJSON: json)
    }

    /// Decodes an `ExportTraceServiceRequest` from standard input with the OpenTelemetry
    /// project's generated code, and writes its spans in OTLP's JSON encoding (ids in hex).
    private static let protobufToJSON = """
        import json, sys
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
        request = ExportTraceServiceRequest()
        request.ParseFromString(sys.stdin.buffer.read())
        def value(any):
            kind = any.WhichOneof("value")
            return {kind: str(getattr(any, kind))} if kind else {}
        spans = [
            {"name": s.name, "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(), "parentSpanId": s.parent_span_id.hex(),
             "attributes": [{"key": a.key, "value": value(a.value)} for a in s.attributes], "status": {"code": s.status.code}}
            for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]
        json.dump({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, sys.stdout)
        """

    /// The spans of an `ExportTraceServiceRequest` in OTLP's JSON encoding.
    static func spans(inJSON data: Data) throws -> [Span] {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError("an OTLP body that is not a JSON object")
        }
        var spans: [Span] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var attributes: [String: String] = [:]
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
                            let text = value.values.first.map({ "\($0)" })
                        else { continue }
                        attributes[key] = text
                    }
                    let status = span["status"] as? [String: Any]
                    spans.append(
                        Span(
                            name: span["name"] as? String ?? "",
                            traceID: try hex(span["traceId"], bytes: 16, "traceId"), spanID: try hex(span["spanId"], bytes: 8, "spanId"),
                            parentSpanID: try hex(span["parentSpanId"], bytes: 8, "parentSpanId"), attributes: attributes,
                            statusCode: (status?["code"] as? NSNumber)?.intValue ?? 0))
                }
            }
        }
        return spans
    }

    /// An id as lower-case hex; one that is not `bytes` bytes in hex (base64, protobuf's JSON
    /// mapping) is refused with the Collector's words.
    private static func hex(_ value: Any?, bytes: Int, _ field: String) throws -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        guard text.count == 2 * bytes, text.allSatisfy(\.isHexDigit) else {
            throw HarnessError("readSpan.\(field): parse \(field): invalid length for ID (\(text))")
        }
        return text.lowercased()
    }
}
