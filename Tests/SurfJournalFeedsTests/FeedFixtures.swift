import Foundation
import Hummingbird
import NIOCore

/// Files of `../shared/corpus/ndbc` (real NDBC documents), read where they are.
enum Corpus {
    static let directory: URL =
        // Tests/SurfJournalFeedsTests/<file> → the package root → ../shared/corpus
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/ndbc")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// NDBC's latest_obs RSS of buoy 42002: one observation (2022-02-27 11:20 UTC).
    static let rss42002 = "ndbc-rss-42002-2022-02-27.xml"
    /// An SOS answer of buoy 41012: 24 hourly wind rows.
    static let sosWinds41012 = "pyoos-ndbc-sos-winds-41012.xml"
}

extension Response {
    /// A response with `body`, of `contentType`, and any other headers.
    static func document(_ body: Data, contentType: String = "application/rss+xml", headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func status(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "\(status.code)\n")))
    }

    static func moved(to location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location])
    }
}

extension Result where Failure == any Error {
    /// What `body` returned or threw: for a test that must clean up before it fails.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
