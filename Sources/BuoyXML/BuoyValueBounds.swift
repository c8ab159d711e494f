/// Physical bounds of the observation properties, and the reasons the reader gives when it
/// does not deliver a value or a record.
///
/// A value outside its bounds is a sensor fault, a sentinel (NDBC text files write 99 or 999
/// for "missing") or a unit mix-up; it is not delivered (the record keeps that field `nil`)
/// and is counted in ``BuoyReadSummary/rejectedValues`` under its reason. The bounds are wide
/// on purpose, so that no real observation is lost:
///
/// | property | bounds | why |
/// |---|---|---|
/// | waveHeight | 0…30 m | the highest significant wave height a buoy recorded is about 19 m |
/// | dominantPeriod, averagePeriod | 1…30 s | ocean swell stays under 25 s; more is minutes, not waves |
/// | meanWaveDirection, windDirection | 0…360° | 360 is north as some sources write it |
/// | windSpeed | 0…80 m/s | above the strongest sustained hurricane winds measured |
/// | windGust | 0…100 m/s | above the strongest gust measured (113 m/s was on land, a tornado aside) |
/// | airTemperature | −70…60 °C | beyond the records over sea and land |
/// | waterTemperature | −5…45 °C | sea water freezes near −2 °C; no sea is above 40 °C |
/// | pressure | 850…1090 hPa | the sea-level records are 870 and 1084 hPa |
public enum BuoyRejection: Sendable {
    /// The closed range a value of `property` must lie in, in the property's ``BuoyObservationProperty/unit``.
    public static func bounds(of property: BuoyObservationProperty) -> ClosedRange<Double> {
        switch property {
        case .waveHeight: 0...30
        case .dominantPeriod, .averagePeriod: 1...30
        case .meanWaveDirection, .windDirection: 0...360
        case .windSpeed: 0...80
        case .windGust: 0...100
        case .airTemperature: -70...60
        case .waterTemperature: -5...45
        case .pressure: 850...1090
        }
    }

    /// Reason of a value below its bounds, e.g. `"waveHeight below 0 m"`.
    public static func belowMinimum(_ property: BuoyObservationProperty) -> String {
        "\(property) below \(format(bounds(of: property).lowerBound)) \(displayUnit(property))"
    }

    /// Reason of a value above its bounds, e.g. `"dominantPeriod above 30 s"`.
    public static func aboveMaximum(_ property: BuoyObservationProperty) -> String {
        "\(property) above \(format(bounds(of: property).upperBound)) \(displayUnit(property))"
    }

    /// Reason of a value that is not a number (or not a finite one), e.g. `"windSpeed not a number"`.
    public static func notANumber(_ property: BuoyObservationProperty) -> String {
        "\(property) not a number"
    }

    /// Reason of a value in a unit that cannot measure the property (or that the reader does
    /// not know), e.g. `"waveHeight in unsupported unit"`.
    public static func unsupportedUnit(_ property: BuoyObservationProperty) -> String {
        "\(property) in unsupported unit"
    }

    /// Record reason: an SOS row or an RSS item without a time.
    public static let recordWithoutTime = "record without time"
    /// Record reason: an SOS row or an RSS item whose time cannot be read as an ISO-8601 UTC
    /// time (SOS) or an NDBC guid or date line (RSS).
    public static let recordWithUnreadableTime = "record with unreadable time"
    /// Record reason: an SOS row or an RSS item that does not say which station it is from.
    public static let recordWithoutStation = "record without station"
    /// Record reason: an SOS row with more or fewer tokens than the data record has columns.
    public static let rowWithWrongTokenCount = "row with wrong number of tokens"
    /// Record reason: a catalogue `<station/>` without an `id`.
    public static let stationWithoutID = "station without id"
    /// Value reason: a catalogue or RSS latitude or longitude that is not a number or lies
    /// outside −90…90 / −180…360.
    public static let invalidCoordinate = "invalid coordinate"

    /// The reason `value` is unusable for `property` (not finite, or out of bounds); `nil`
    /// when it is fine.
    static func violation(_ value: Double, _ property: BuoyObservationProperty) -> String? {
        guard value.isFinite else { return notANumber(property) }
        let range = bounds(of: property)
        if value < range.lowerBound { return belowMinimum(property) }
        if value > range.upperBound { return aboveMaximum(property) }
        return nil
    }

    private static func displayUnit(_ property: BuoyObservationProperty) -> String {
        switch property.unit {
        case .degree: "deg"
        case .celsius: "°C"
        default: property.unit.symbol
        }
    }

    private static func format(_ bound: Double) -> String {
        bound == bound.rounded() ? String(Int(bound)) : String(bound)
    }
}
