public import Foundation

/// One observation of one station at one time, in the units the model stores.
///
/// Every measured field is optional: `nil` means the document did not give the value (an
/// absent RSS line, an empty SOS token) or gave one the reader rejected (see
/// ``BuoyRejection``). A missing value is never 0.
public struct BuoyObservationRecord: Hashable, Sendable {
    /// The NDBC station identifier, upper-cased (`42002`, `YRSV2`).
    public var stationID: String
    /// When the observation was made (UTC).
    public var time: Date
    /// Significant wave height, metres.
    public var waveHeight: Double?
    /// Dominant (peak) wave period, seconds.
    public var dominantPeriod: Double?
    /// Average (mean) wave period, seconds.
    public var averagePeriod: Double?
    /// Direction the dominant waves come from, degrees clockwise from true north.
    public var meanWaveDirection: Double?
    /// Wind speed, metres per second.
    public var windSpeed: Double?
    /// Direction the wind comes from, degrees clockwise from true north.
    public var windDirection: Double?
    /// Peak gust, metres per second.
    public var windGust: Double?
    /// Air temperature, degrees Celsius.
    public var airTemperature: Double?
    /// Sea surface temperature, degrees Celsius.
    public var waterTemperature: Double?
    /// Sea-level air pressure, hectopascals (= millibars).
    public var pressure: Double?

    /// Creates a record.
    public init(
        stationID: String,
        time: Date,
        waveHeight: Double? = nil,
        dominantPeriod: Double? = nil,
        averagePeriod: Double? = nil,
        meanWaveDirection: Double? = nil,
        windSpeed: Double? = nil,
        windDirection: Double? = nil,
        windGust: Double? = nil,
        airTemperature: Double? = nil,
        waterTemperature: Double? = nil,
        pressure: Double? = nil
    ) {
        self.stationID = stationID
        self.time = time
        self.waveHeight = waveHeight
        self.dominantPeriod = dominantPeriod
        self.averagePeriod = averagePeriod
        self.meanWaveDirection = meanWaveDirection
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.windGust = windGust
        self.airTemperature = airTemperature
        self.waterTemperature = waterTemperature
        self.pressure = pressure
    }

    /// The value of one property.
    public subscript(property: BuoyObservationProperty) -> Double? {
        get {
            switch property {
            case .waveHeight: waveHeight
            case .dominantPeriod: dominantPeriod
            case .averagePeriod: averagePeriod
            case .meanWaveDirection: meanWaveDirection
            case .windSpeed: windSpeed
            case .windDirection: windDirection
            case .windGust: windGust
            case .airTemperature: airTemperature
            case .waterTemperature: waterTemperature
            case .pressure: pressure
            }
        }
        set {
            switch property {
            case .waveHeight: waveHeight = newValue
            case .dominantPeriod: dominantPeriod = newValue
            case .averagePeriod: averagePeriod = newValue
            case .meanWaveDirection: meanWaveDirection = newValue
            case .windSpeed: windSpeed = newValue
            case .windDirection: windDirection = newValue
            case .windGust: windGust = newValue
            case .airTemperature: airTemperature = newValue
            case .waterTemperature: waterTemperature = newValue
            case .pressure: pressure = newValue
            }
        }
    }
}
