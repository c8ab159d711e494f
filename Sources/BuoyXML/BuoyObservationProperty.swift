/// The surf-relevant properties a buoy observation holds.
///
/// The raw value is the name of the ``BuoyObservationRecord`` property (and of the
/// `BuoyObservation` attribute of the model); it is also the prefix of rejection reasons.
public enum BuoyObservationProperty: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case waveHeight
    case dominantPeriod
    case averagePeriod
    case meanWaveDirection
    case windSpeed
    case windDirection
    case windGust
    case airTemperature
    case waterTemperature
    case pressure

    /// The unit the record holds the property in.
    public var unit: BuoyUnit {
        switch self {
        case .waveHeight: .metre
        case .dominantPeriod, .averagePeriod: .second
        case .meanWaveDirection, .windDirection: .degree
        case .windSpeed, .windGust: .metrePerSecond
        case .airTemperature, .waterTemperature: .celsius
        case .pressure: .hectopascal
        }
    }

    public var description: String { rawValue }

    /// The property an NDBC SOS field (`swe:field/@name`, a CF standard name) holds, and
    /// whether its direction must be turned round (CF `…_to_direction` names give where the
    /// waves go; the model stores where they come from, as NDBC's MWD does).
    static func sosField(named name: String) -> (property: BuoyObservationProperty, reversesDirection: Bool)? {
        switch name {
        case "sea_surface_wave_significant_height": (.waveHeight, false)
        case "sea_surface_wave_peak_period", "sea_surface_dominant_wave_period", "dominant_wave_period":
            (.dominantPeriod, false)
        case "sea_surface_wave_mean_period", "average_wave_period": (.averagePeriod, false)
        case "sea_surface_wave_from_direction", "sea_surface_wave_mean_from_direction": (.meanWaveDirection, false)
        case "sea_surface_wave_to_direction": (.meanWaveDirection, true)
        case "wind_speed": (.windSpeed, false)
        case "wind_from_direction": (.windDirection, false)
        case "wind_speed_of_gust": (.windGust, false)
        case "air_temperature": (.airTemperature, false)
        case "sea_water_temperature", "sea_surface_temperature": (.waterTemperature, false)
        case "air_pressure_at_sea_level", "air_pressure": (.pressure, false)
        default: nil
        }
    }

    /// The property an NDBC `latest_obs` RSS line label (without its colon, any case) holds.
    static func rssLabel(_ label: String) -> BuoyObservationProperty? {
        switch label.lowercased() {
        case "significant wave height", "wave height": .waveHeight
        case "dominant wave period", "dominant period": .dominantPeriod
        case "average period", "average wave period": .averagePeriod
        case "mean wave direction": .meanWaveDirection
        case "wind speed": .windSpeed
        case "wind direction": .windDirection
        case "wind gust", "gust": .windGust
        case "air temperature": .airTemperature
        case "water temperature", "sea surface temperature": .waterTemperature
        case "atmospheric pressure", "pressure", "air pressure": .pressure
        default: nil
        }
    }
}
