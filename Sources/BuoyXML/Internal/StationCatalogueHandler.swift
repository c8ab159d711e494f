/// Reads NDBC `activestations.xml`: `<stations>` holding one `<station/>` per station, whose
/// data is all in attributes (`id`, `lat`, `lon`, `elev`, `name`, `owner`, `pgm`, `type`,
/// `met`, `currents`, `waterquality`, `dart`, `seq`).
///
/// `id`, `name`, `lat`, `lon`, `owner` and `type` make the ``BuoyStationRecord`` (an empty
/// attribute is `nil`); every other attribute counts as an ignored value under its name.
final class StationCatalogueHandler: SAXEventHandler {
    private unowned let session: SAXSession
    private let sink: ObservationSink
    private var depth = 0

    init(session: SAXSession, sink: ObservationSink) {
        self.session = session
        self.sink = sink
    }

    func startElement(_ element: SAXElement) throws {
        depth += 1
        // The root was consumed by the router; stations are its children.
        guard depth == 1, element.isNamed("station") else { return }
        sink.countRecord()
        var record = BuoyStationRecord(stationID: "")
        var hasID = false
        element.forEachAttribute { name, value in
            if SAXName.equals(name, "id") {
                if let id = StationID.normalized(element.decode(value)) {
                    record.stationID = id
                    hasID = true
                }
            } else if SAXName.equals(name, "name") {
                record.name = Self.nonEmpty(element.decode(value))
            } else if SAXName.equals(name, "owner") {
                record.owner = Self.nonEmpty(element.decode(value))
            } else if SAXName.equals(name, "type") {
                record.type = Self.nonEmpty(element.decode(value))
            } else if SAXName.equals(name, "lat") {
                record.latitude = coordinate(value, range: -90...90)
            } else if SAXName.equals(name, "lon") {
                record.longitude = coordinate(value, range: -180...360).map { $0 > 180 ? $0 - 360 : $0 }
            } else {
                sink.ignore(String(cString: name))
            }
        }
        guard hasID else {
            sink.rejectRecord(BuoyRejection.stationWithoutID) {
                let position = session.position
                let tag = record.name.map { "<station name=\"\($0)\">" } ?? "<station>"
                return BuoyDocumentText(text: tag, line: position?.line, column: position?.column)
            }
            return
        }
        try sink.deliver(record)
    }

    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws {
        depth -= 1
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {}

    func endDocument() throws {}

    private static func nonEmpty(_ value: String) -> String? {
        let text = value.trimmingSpaces()
        return text.isEmpty ? nil : text
    }

    private func coordinate(_ value: UnsafeBufferPointer<UInt8>, range: ClosedRange<Double>) -> Double? {
        let trimmed = ByteParsing.trimmed(value)
        guard !trimmed.isEmpty else { return nil }
        guard let number = ByteParsing.decimal(trimmed), range.contains(number) else {
            sink.rejectValue(BuoyRejection.invalidCoordinate)
            return nil
        }
        return number
    }
}
