public import LineupStore

/// A buoy station of the NDBC catalogue, unique by its station ID (e.g. "42002").
public final class BuoyStation: ManagedObject {
    @Attribute("stationID") public var stationID: String?
    @Attribute("name") public var name: String?
    @Attribute("latitude") public var latitude: Double?
    @Attribute("longitude") public var longitude: Double?
    @Attribute("owner") public var owner: String?
    @Attribute("type") public var stationType: String?

    public override class var uniquenessConstraints: [[String]] { [["stationID"]] }
}
