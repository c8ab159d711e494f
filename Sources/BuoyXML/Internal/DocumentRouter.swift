/// Recognises the format from the root element and hands every later event to the handler of
/// that format. The root element itself is not forwarded: the format handlers count depth
/// from its children.
final class DocumentRouter: SAXEventHandler {
    private let sink: ObservationSink
    private let limits: BuoyXMLLimits
    /// Set right after the session is created; the session owns the router, so this is weak.
    weak var session: SAXSession?
    private(set) var format: BuoyXMLFormat?
    private var delegate: (any SAXEventHandler)?
    private var depth = 0

    init(sink: ObservationSink, limits: BuoyXMLLimits) {
        self.sink = sink
        self.limits = limits
    }

    func startElement(_ element: SAXElement) throws {
        depth += 1
        if depth > 1 {
            try delegate?.startElement(element)
            return
        }
        guard let session else { return }
        let rootName = element.localNameString
        let namespace = element.namespaceString
        guard let format = BuoyXMLFormat.detect(rootLocalName: rootName, namespace: namespace) else {
            let qualified = namespace.map { "{\($0)}\(rootName)" } ?? rootName
            throw session.error(
                .unsupportedFormat,
                "root element \(qualified) is not an NDBC latest_obs RSS feed, SOS ObservationCollection or activestations catalogue"
            )
        }
        self.format = format
        switch format {
        case .ndbcLatestObservationRSS:
            delegate = RSSObservationHandler(session: session, sink: sink, limits: limits)
        case .ndbcSOSObservationCollection:
            delegate = SOSObservationHandler(session: session, sink: sink, limits: limits)
        case .ndbcActiveStations:
            delegate = StationCatalogueHandler(session: session, sink: sink)
        }
    }

    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws {
        defer { depth -= 1 }
        if depth > 1 {
            try delegate?.endElement(localName: localName, namespace: namespace)
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try delegate?.characters(bytes)
    }

    func cdataBlock(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try delegate?.cdataBlock(bytes)
    }

    func endDocument() throws {
        try delegate?.endDocument()
    }
}

/// The handler of ``BuoyXMLReader/validate(contentsOf:)``: counts elements and notes the
/// format of the root, nothing else (libxml2 still checks the whole document).
final class ValidationHandler: SAXEventHandler {
    private(set) var elementCount = 0
    private(set) var format: BuoyXMLFormat?

    func startElement(_ element: SAXElement) throws {
        if elementCount == 0 {
            format = BuoyXMLFormat.detect(rootLocalName: element.localNameString, namespace: element.namespaceString)
        }
        elementCount += 1
    }

    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws {}

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {}

    func endDocument() throws {}
}
