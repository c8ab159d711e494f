/// One buoy station, as a document describes it.
///
/// Every field but the identifier is optional: `nil` means "this document does not say", so a
/// caller that already knows the station should not overwrite a known value with `nil`. The
/// catalogue (`activestations.xml`) gives all fields (an empty `name=""` is `nil`); an RSS or
/// SOS document gives the identifier, and the name and position where it states them.
public struct BuoyStationRecord: Hashable, Sendable {
    /// The NDBC station identifier, upper-cased (`42002`, `YRSV2`), so that the catalogue's
    /// lower-case C-MAN identifiers match the upper-case ones of the RSS feeds.
    public var stationID: String
    /// The station's name (`WEST GULF - 207 NM East of Brownsville, TX`).
    public var name: String?
    /// Degrees north (negative south).
    public var latitude: Double?
    /// Degrees east (negative west), within −180…180.
    public var longitude: Double?
    /// The operator (`NDBC`, `Prediction and Research Moored Array in the Atlantic`, …).
    public var owner: String?
    /// The platform type as the catalogue writes it (`buoy`, `fixed`, `dart`, `oilrig`, …).
    public var type: String?

    /// Creates a record.
    public init(
        stationID: String,
        name: String? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        owner: String? = nil,
        type: String? = nil
    ) {
        self.stationID = stationID
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.owner = owner
        self.type = type
    }
}
