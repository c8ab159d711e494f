public import Foundation

/// Streams NDBC buoy XML documents with libxml2 and delivers their content as plain values.
///
/// The format (``BuoyXMLFormat``) is recognised from the document's root element, whatever the
/// file is called. Memory stays constant whatever the size of the file: the reader pushes the
/// file to libxml2's SAX2 parser in chunks and buffers only one text at a time (see
/// ``BuoyXMLLimits``). It never touches the network, never reads an external entity or DTD,
/// and relies on libxml2's bounds on entity expansion.
///
/// Values arrive in SI units (``BuoyObservationProperty/unit``); a missing value stays `nil`;
/// a value out of physical bounds is left out and counted (``BuoyRejection``).
///
/// A reader holds no state between calls: one reader may run several reads at once on
/// several threads. Each read calls its callbacks on the calling thread, in document order.
public struct BuoyXMLReader: Sendable {
    /// The bounds every read of this reader applies.
    public var limits: BuoyXMLLimits

    /// Creates a reader.
    public init(limits: BuoyXMLLimits = .default) {
        self.limits = limits
    }

    /// Reads a buoy document, calling `onObservation` for every observation and `onStation`
    /// for every station, as the document is parsed.
    ///
    /// - From a station catalogue: one station record per `<station/>`.
    /// - From an RSS or SOS document: one observation per item or row that carries at least one
    ///   surf value, each preceded (the first time its station appears) by a station record
    ///   with what the document says about that station.
    ///
    /// A document that yields nothing (no observation from RSS or SOS, no station from a
    /// catalogue) is an error, ``BuoyXMLError/Code/nothingReadable``, whose message says what
    /// the document holds: a caller never mistakes an unreadable document for an empty success.
    /// Records that are skipped while others are delivered are counted in the summary, with the
    /// first example of each reason (``BuoyReadSummary/skippedRecordsDescription``).
    ///
    /// Records are delivered while parsing, so a caller can save them in batches. If the
    /// document turns out malformed further on, this still throws, after some records were
    /// delivered: a caller that must not keep part of a malformed file runs
    /// ``validate(contentsOf:)`` first, or discards what it received.
    ///
    /// - Throws: ``BuoyXMLError`` (naming the file, line and column) for a file that cannot be
    ///   read, a malformed document, a document of another format (an unknown root element, or
    ///   an O&M collection that is not SOS: both named) or a document that yields nothing; or
    ///   the first error a callback throws, unchanged, after which parsing stops.
    public func read(
        contentsOf url: URL,
        onObservation: (BuoyObservationRecord) throws -> Void,
        onStation: (BuoyStationRecord) throws -> Void
    ) throws -> BuoyReadSummary {
        try withoutActuallyEscaping(onObservation) { onObservation in
            try withoutActuallyEscaping(onStation) { onStation in
                let sink = ObservationSink(onObservation: onObservation, onStation: onStation)
                let router = DocumentRouter(sink: sink, limits: limits)
                let session = SAXSession(path: url.path, handler: router, limits: limits)
                router.session = session
                try session.parse(fileAt: url)
                guard let format = router.format else {
                    throw BuoyXMLError(code: .malformedDocument, file: url.path, message: "the document has no root element")
                }
                let summary = sink.summary(format: format, byteCount: session.byteCount)
                guard summary.observationCount > 0 || summary.stationCount > 0 else {
                    throw BuoyXMLError(
                        code: .nothingReadable, file: url.path, message: summary.nothingReadableMessage, summary: summary)
                }
                return summary
            }
        }
    }

    /// Checks that a file is a well-formed XML document, with libxml2's SAX2 parser and no
    /// work in the callbacks: the pass an importer runs before saving anything of a file, and
    /// the baseline of the import benchmark.
    ///
    /// - Throws: ``BuoyXMLError`` for a file that cannot be read or a malformed document (an
    ///   unknown root element is not an error here; ``BuoyXMLValidation/format`` is `nil`).
    public func validate(contentsOf url: URL) throws -> BuoyXMLValidation {
        let handler = ValidationHandler()
        let session = SAXSession(path: url.path, handler: handler, limits: limits, wantsCharacters: false)
        try session.parse(fileAt: url)
        guard handler.elementCount > 0 else {
            throw BuoyXMLError(code: .malformedDocument, file: url.path, message: "the document has no root element")
        }
        return BuoyXMLValidation(byteCount: session.byteCount, elementCount: handler.elementCount, format: handler.format)
    }
}
