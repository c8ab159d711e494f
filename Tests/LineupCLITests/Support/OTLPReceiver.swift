import Foundation
import Hummingbird
import LineupLocking
import Logging
import NIOCore

/// An OTLP/HTTP receiver on 127.0.0.1, on a port the system picks: it takes what an exporter
/// POSTs to `/v1/traces` (JSON-encoded OTLP) and keeps the spans, for a test to read as a
/// collector would show them.
final class OTLPReceiver: Sendable {
    /// A span as the receiver read it. Ids are lower-case hex whichever way the exporter wrote
    /// them (the OTLP specification says hex; protobuf's JSON mapping gives base64).
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
            let body = try await request.body.collect(upTo: 16 << 20)
            let spans = try Self.spans(inJSON: Data(body.readableBytesView))
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
                            traceID: hex(span["traceId"], bytes: 16), spanID: hex(span["spanId"], bytes: 8),
                            parentSpanID: hex(span["parentSpanId"], bytes: 8), attributes: attributes,
                            statusCode: (status?["code"] as? NSNumber)?.intValue ?? 0))
                }
            }
        }
        return spans
    }

    /// An id as lower-case hex, from hex or from base64.
    private static func hex(_ value: Any?, bytes: Int) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count == 2 * bytes, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let data = Data(base64Encoded: text) else { return text }
        return data.map { String(format: "%02x", $0) }.joined()
    }
}
