/// The document formats the reader understands, recognised from the root element and its
/// namespace (never from the file name).
public enum BuoyXMLFormat: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// NDBC `latest_obs` RSS 2.0 (`<rss>`, no namespace): one observation per `<item>`, as HTML
    /// lines inside the item's description, in imperial units.
    case ndbcLatestObservationRSS = "ndbc-latest-obs-rss"
    /// NDBC IOOS SOS GetObservation response (`om:ObservationCollection`, O&M 1.0 with SWE 1.0
    /// `swe:DataStream` results): rows of tokens in `swe:values`, units declared per field.
    case ndbcSOSObservationCollection = "ndbc-sos-observation-collection"
    /// NDBC `activestations.xml` (`<stations>`, no namespace): the station catalogue, one
    /// `<station/>` element per station with its data in attributes.
    case ndbcActiveStations = "ndbc-activestations"

    public var description: String { rawValue }

    /// The format of a document whose root element has this local name and namespace URI, or
    /// `nil` when it is none of ours.
    static func detect(rootLocalName: String, namespace: String?) -> BuoyXMLFormat? {
        switch (rootLocalName, namespace) {
        case ("rss", nil):
            return .ndbcLatestObservationRSS
        case ("stations", nil):
            return .ndbcActiveStations
        case ("ObservationCollection", let uri?) where uri.hasPrefix("http://www.opengis.net/om/1.0"):
            return .ndbcSOSObservationCollection
        default:
            return nil
        }
    }
}
