import ArgumentParser
import Foundation
import Logging
#if OTLPExporter
import OTel
#endif
import ServiceLifecycle
import Tracing

/// lineupd's tracer, bootstrapped only when an OTLP endpoint is configured (`--otel-endpoint`,
/// `otelEndpoint`): without it no tracer exists, and the runner makes no span.
enum TracingBackend {
    #if OTLPExporter
    /// Bootstraps the process's tracer: spans batched and exported over OTLP/HTTP, encoded in
    /// protobuf, to `endpoint`'s `/v1/traces`, with the W3C Trace Context propagator that reads
    /// and writes the job files' `traceparent`. The standard `OTEL_*` environment variables
    /// override these settings (`OTEL_BSP_SCHEDULE_DELAY`, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`).
    ///
    /// Protobuf, as the OpenTelemetry SDKs default to, and not JSON: swift-otel 1.6.0's JSON
    /// writes trace and span ids in base64, protobuf's JSON mapping, where the OTLP specification
    /// requires hex, and the OpenTelemetry Collector answers such a request 400 ("invalid length
    /// for ID"). So `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json` reaches no Collector.
    ///
    /// - Returns: the service that exports the spans and sends the last ones at shutdown: run it
    ///   alongside the daemon, ahead of the other services, so that it stops after all of them.
    static func bootstrap(endpoint: URL, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "lineupd"
        configuration.propagators = [.traceContext]
        configuration.diagnosticLogger = .custom(logger)
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = tracesURL(of: endpoint)
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
    #else
    /// Refuses: this build has no exporter (see Package.swift's trait).
    static func bootstrap(endpoint: URL, logger: Logger) throws -> any Service {
        throw ValidationError(
            "this lineupd was built without its OTLP exporter (the package trait OTLPExporter, on by default): it cannot export spans")
    }
    #endif

    /// The endpoint's traces URL, as OTLP/HTTP derives it from a base URL
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT`): `v1/traces` under its path.
    static func tracesURL(of endpoint: URL) -> String {
        var text = endpoint.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        return text + "v1/traces"
    }
}
