import Foundation

/// Reads an NDBC `latest_obs` RSS 2.0 feed: `rss/channel/item`, one observation per item.
///
/// The station and UTC time come from the item's guid (`NDBC-42002-20220227112000`); without
/// one, from the title or link (station) and the description's date line with its zone
/// abbreviation (time). The observation values come from the description's lines
/// (``RSSObservationText``); labels the model does not hold (`Dew Point`, `Tide`, …) count as
/// ignored values. The station record takes its name from the channel title (or the item
/// title) and its position from `georss:point` (or the `Location:` line).
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
    }

    private var item = Item()

    private enum Capture {
        case none, channelTitle, title, description, guid, link, point
    }

    private var capture = Capture.none
    private var captureDepth = 0
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
            case .title: item.title = value
            case .description: item.description = value
            case .guid: item.guid = value
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

    func endDocument() throws {}

    private func startCapture(_ kind: Capture) {
        capture = kind
        captureDepth = depth
        text.removeAll()
    }

    private func readItem(_ item: Item) throws {
        let guid = item.guid.flatMap(RSSObservationText.guid)
        let title = item.title.flatMap(RSSObservationText.titleStation)
        let lines = item.description.map(RSSObservationText.lines(ofDescription:)) ?? []

        var observation = BuoyObservationRecord(stationID: "", time: Date(timeIntervalSince1970: 0))
        var hasSurfValue = false
        var location: (latitude: Double, longitude: Double)?
        var dateLine: String?
        for line in lines {
            guard let label = line.label else {
                if dateLine == nil { dateLine = line.value }
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

        guard let station = guid?.station ?? title?.station ?? item.link.flatMap(RSSObservationText.linkStation) else {
            sink.rejectRecord(BuoyRejection.recordWithoutStation)
            return
        }
        let time = guid?.time ?? dateLine.flatMap(RSSObservationText.localTime)
        guard let time else {
            sink.rejectRecord(guid != nil || dateLine != nil ? BuoyRejection.recordWithUnreadableTime : BuoyRejection.recordWithoutTime)
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
}
