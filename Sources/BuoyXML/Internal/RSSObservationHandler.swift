import Foundation

/// Reads an NDBC `latest_obs` RSS 2.0 feed: `rss/channel/item`, one observation per item, of
/// every generation NDBC has published (see ``RSSObservationText``).
///
/// The station comes from the item's guid (`NDBC-42002-20220227112000`, or
/// `station_page.php?station=62303&ts=1349370000`), else its title or link. The time comes
/// from the guid, else from the description's date line with its zone abbreviation
/// (`5:20 am CST`, `1700 UTC`).
///
/// When both hold a time and they disagree, the guid wins: it is written by a program in UTC
/// (a timestamp or a Unix time), while the date line is for people, in a local zone named by an
/// abbreviation that the reader must map to an offset (abbreviations are ambiguous outside
/// NDBC's list, `CST` is also China's, and a feed generated around a daylight-saving change
/// has been seen to name the wrong one). The guid is also what identifies the item, so a
/// feed read twice upserts the same observation. The date line is read only when the guid has
/// no readable time.
///
/// The observation values come from the description's lines (``RSSObservationText``); labels
/// the model does not hold (`Dew Point`, `Tide`, …) count as ignored values. The station
/// record takes its name from the channel title (or the item title) and its position from
/// `georss:point` (or the `Location:` line).
///
/// An item that cannot be delivered (no station, no readable time) is counted with its
/// reason, and the first of each reason is kept with its text and position: the date line,
/// else the guid, else the title.
final class RSSObservationHandler: SAXEventHandler {
    private unowned let session: SAXSession
    private let sink: ObservationSink
    private let limits: BuoyXMLLimits

    private var depth = 0
    private var inChannel = false
    private var inItem = false
    private var channelTitle: String?

    private struct Item {
        var title: String?
        var description: String?
        var guid: String?
        var link: String?
        var point: String?
        var titleStart: TextStart?
        var descriptionStart: TextStart?
        var guidStart: TextStart?
    }

    /// Where a captured text begins: the position libxml2 gives at its start tag (the `>`),
    /// and how many columns of `<![CDATA[` come before the text on that first line.
    struct TextStart {
        var line: Int
        var column: Int
        var cdataColumns = 0

        /// The position of the byte at `offset` of `text`, the captured text (CDATA is
        /// verbatim, so only the markers shift columns, and only on the first line).
        func position(ofOffset offset: Int, in text: String) -> (line: Int, column: Int) {
            var position = TextPosition(line: line, column: column + 1 + cdataColumns)
            position.advance(over: text.utf8.prefix(offset))
            return (position.line, position.column)
        }
    }

    private var item = Item()

    private enum Capture {
        case none, channelTitle, title, description, guid, link, point
    }

    private var capture = Capture.none
    private var captureDepth = 0
    private var captureStart: TextStart?
    private let text: ByteBuffer

    init(session: SAXSession, sink: ObservationSink, limits: BuoyXMLLimits) {
        self.session = session
        self.sink = sink
        self.limits = limits
        self.text = ByteBuffer(initialCapacity: 1024, limit: limits.maximumTextBytes)
    }

    func startElement(_ element: SAXElement) throws {
        depth += 1
        switch depth {
        case 1 where element.isNamed("channel"):
            inChannel = true
        case 2 where inChannel:
            if element.isNamed("title") {
                startCapture(.channelTitle)
            } else if element.isNamed("item") {
                inItem = true
                item = Item()
            }
        case 3 where inItem:
            if element.isNamed("title") {
                startCapture(.title)
            } else if element.isNamed("description") {
                startCapture(.description)
            } else if element.isNamed("guid") {
                startCapture(.guid)
            } else if element.isNamed("link") {
                startCapture(.link)
            } else if element.isNamed("point", namespace: "http://www.georss.org/georss") {
                startCapture(.point)
            }
        default:
            break
        }
    }

    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws {
        defer { depth -= 1 }
        if capture != .none, depth == captureDepth {
            let value = text.string
            switch capture {
            case .none: break
            case .channelTitle: channelTitle = value
            case .title: (item.title, item.titleStart) = (value, captureStart)
            case .description: (item.description, item.descriptionStart) = (value, captureStart)
            case .guid: (item.guid, item.guidStart) = (value, captureStart)
            case .link: item.link = value
            case .point: item.point = value
            }
            capture = .none
            text.removeAll()
            return
        }
        if depth == 2, inItem {
            inItem = false
            try readItem(item)
        } else if depth == 1 {
            inChannel = false
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard capture != .none else { return }
        guard text.append(bytes) else {
            throw session.error(.limitExceeded, "an RSS text is longer than \(limits.maximumTextBytes) bytes")
        }
    }

    func cdataBlock(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if capture != .none, !text.bytes.contains(0x0A) {
            captureStart?.cdataColumns += "<![CDATA[".utf8.count
        }
        try characters(bytes)
    }

    func endDocument() throws {}

    private func startCapture(_ kind: Capture) {
        capture = kind
        captureDepth = depth
        captureStart = session.position.map { TextStart(line: $0.line, column: $0.column) }
        text.removeAll()
    }

    private func readItem(_ item: Item) throws {
        sink.countRecord()
        let guid = item.guid.flatMap(RSSObservationText.guid)
        let title = item.title.flatMap(RSSObservationText.titleStation)
        let lines = item.description.map(RSSObservationText.lines(ofDescription:)) ?? []

        var observation = BuoyObservationRecord(stationID: "", time: Date(timeIntervalSince1970: 0))
        var hasSurfValue = false
        var location: (latitude: Double, longitude: Double)?
        var dateLine: RSSObservationText.Line?
        for line in lines {
            guard let label = line.label else {
                if dateLine == nil { dateLine = line }
                continue
            }
            if label.lowercased() == "location" {
                location = RSSObservationText.location(line.value)
                continue
            }
            guard let property = BuoyObservationProperty.rssLabel(label) else {
                sink.ignore(label)
                continue
            }
            hasSurfValue = true
            switch RSSObservationText.reading(of: property, in: line.value) {
            case .value(let value):
                if let reason = BuoyRejection.violation(value, property) {
                    sink.rejectValue(reason)
                } else {
                    observation[property] = value
                }
            case .rejected(let reason):
                sink.rejectValue(reason)
            }
        }
        guard hasSurfValue else { return }

        let example = { Self.example(of: item, dateLine: dateLine) }
        guard let station = guid?.station ?? title?.station ?? item.link.flatMap(RSSObservationText.linkStation) else {
            sink.rejectRecord(BuoyRejection.recordWithoutStation, example: example)
            return
        }
        let time = guid?.time ?? dateLine.flatMap { RSSObservationText.localTime($0.value) }
        guard let time else {
            let reason = guid != nil || dateLine != nil ? BuoyRejection.recordWithUnreadableTime : BuoyRejection.recordWithoutTime
            sink.rejectRecord(reason, example: example)
            return
        }
        observation.stationID = station
        observation.time = time
        let channelTitle = self.channelTitle
        try sink.deliver(observation) {
            let position = item.point.flatMap(RSSObservationText.point) ?? location
            let name = channelTitle.flatMap { RSSObservationText.channelStationName($0, station: station) }
                ?? (title?.station == station ? title?.name : nil)
            return BuoyStationRecord(
                stationID: station,
                name: name,
                latitude: position?.latitude,
                longitude: position?.longitude
            )
        }
    }

    /// The text that shows why an item was skipped, with its position: the date line, else the
    /// guid, else the title.
    private static func example(of item: Item, dateLine: RSSObservationText.Line?) -> BuoyDocumentText? {
        if let dateLine, let description = item.description {
            let position = item.descriptionStart?.position(ofOffset: dateLine.offset, in: description)
            return BuoyDocumentText(text: dateLine.value, line: position?.line, column: position?.column)
        }
        for (text, start) in [(item.guid, item.guidStart), (item.title, item.titleStart)] {
            guard let text else { continue }
            let trimmed = text.trimmingSpaces()
            guard !trimmed.isEmpty else { continue }
            let leading = text.utf8.prefix(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }).count
            let position = start?.position(ofOffset: leading, in: text)
            return BuoyDocumentText(text: trimmed, line: position?.line, column: position?.column)
        }
        return nil
    }
}
