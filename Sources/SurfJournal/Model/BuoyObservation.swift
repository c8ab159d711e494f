public import Foundation
public import LineupStore

/// What one buoy measured at one time, in SI units whatever the source used; unique on
/// (station, time). A missing value is nil, never 0.
public final class BuoyObservation: ManagedObject {
    @Relationship("station", inverse: "observations") public var station: BuoyStation?
    @Attribute("time") public var time: Date?
    /// Significant wave height, m.
    @Attribute("waveHeight") public var waveHeight: Double?
    /// Dominant wave period, s.
    @Attribute("dominantPeriod") public var dominantPeriod: Double?
    /// Average wave period, s.
    @Attribute("averagePeriod") public var averagePeriod: Double?
    /// Mean wave direction, degrees true (from).
    @Attribute("meanWaveDirection") public var meanWaveDirection: Double?
    /// m/s
    @Attribute("windSpeed") public var windSpeed: Double?
    /// Degrees true (from).
    @Attribute("windDirection") public var windDirection: Double?
    /// m/s
    @Attribute("windGust") public var windGust: Double?
    /// °C
    @Attribute("airTemperature") public var airTemperature: Double?
    /// °C
    @Attribute("waterTemperature") public var waterTemperature: Double?
    /// hPa
    @Attribute("pressure") public var pressure: Double?

    public override class var uniquenessConstraints: [[String]] { [["station", "time"]] }
    public override class var indexes: [[String]] { [["time"]] }
}
