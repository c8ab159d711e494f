public import LineupStore

/// A buoy station of the NDBC catalogue, unique by its station ID (e.g. "42002").
public final class BuoyStation: ManagedObject {
    @Attribute("stationID") public var stationID: String?
    @Attribute("name") public var name: String?
    @Attribute("latitude") public var latitude: Double?
    @Attribute("longitude") public var longitude: Double?
    @Attribute("owner") public var owner: String?
    @Attribute("type") public var stationType: String?
    /// The station's observations, the inverse of ``BuoyObservation/station``.
    ///
    /// Deny, not cascade: observations are measurements that nothing can take again, and a
    /// station deleted by accident (a catalogue clean-up) must not take years of them with it.
    /// Retention is explicit: `prune-observations` of the station first, then the delete.
    @ToMany("observations", inverse: "station", deleteRule: .deny) public var observations: [BuoyObservation]

    public override class var uniquenessConstraints: [[String]] { [["stationID"]] }
}
