/// The units buoy documents write values in, and their conversion to the unit the model stores.
///
/// Every conversion of the reader goes through ``toModelUnit(_:)``. The model stores SI units,
/// with the customary marine choices where SI has several: metres, seconds, degrees for angles,
/// metres per second, degrees Celsius and hectopascals (= millibars).
///
/// Factors are exact by definition (international foot 0.3048 m, knot 1852 m per hour, mile
/// 1609.344 m) except the inch of mercury, for which the conventional 33.8638866667 hPa
/// (3386.38866667 Pa, mercury at 0 °C under standard gravity) is used.
public enum BuoyUnit: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case metre, centimetre, foot
    case second
    case degree
    case metrePerSecond, centimetrePerSecond, knot, kilometrePerHour, milePerHour
    case celsius, fahrenheit, kelvin
    case hectopascal, pascal, kilopascal, inchOfMercury

    /// What a unit measures; a value converts only between units of the same dimension.
    public enum Dimension: Hashable, Sendable {
        case length, period, angle, speed, temperature, pressure
    }

    /// The dimension of the unit.
    public var dimension: Dimension {
        switch self {
        case .metre, .centimetre, .foot: .length
        case .second: .period
        case .degree: .angle
        case .metrePerSecond, .centimetrePerSecond, .knot, .kilometrePerHour, .milePerHour: .speed
        case .celsius, .fahrenheit, .kelvin: .temperature
        case .hectopascal, .pascal, .kilopascal, .inchOfMercury: .pressure
        }
    }

    /// The unit the model stores values of this dimension in.
    public var modelUnit: BuoyUnit {
        switch dimension {
        case .length: .metre
        case .period: .second
        case .angle: .degree
        case .speed: .metrePerSecond
        case .temperature: .celsius
        case .pressure: .hectopascal
        }
    }

    /// `value` (in this unit) in ``modelUnit``.
    public func toModelUnit(_ value: Double) -> Double {
        switch self {
        case .metre, .second, .degree, .metrePerSecond, .celsius, .hectopascal: value
        case .centimetre, .centimetrePerSecond, .pascal: value / 100
        case .foot: value * 0.3048
        case .knot: value * 1852 / 3600
        case .kilometrePerHour: value * 1000 / 3600
        case .milePerHour: value * 1609.344 / 3600
        case .fahrenheit: (value - 32) * 5 / 9
        case .kelvin: value - 273.15
        case .kilopascal: value * 10
        case .inchOfMercury: value * 33.8638866667
        }
    }

    /// How much one unit of this unit is worth in ``modelUnit`` (the slope of
    /// ``toModelUnit(_:)``): used to compare the precision of two renderings of a value.
    public var modelUnitsPerUnit: Double {
        switch self {
        case .metre, .second, .degree, .metrePerSecond, .celsius, .hectopascal: 1
        case .centimetre, .centimetrePerSecond, .pascal: 0.01
        case .foot: 0.3048
        case .knot: 1852.0 / 3600
        case .kilometrePerHour: 1000.0 / 3600
        case .milePerHour: 1609.344 / 3600
        case .fahrenheit: 5.0 / 9
        case .kelvin: 1
        case .kilopascal: 10
        case .inchOfMercury: 33.8638866667
        }
    }

    /// The symbol used when writing documents and messages (UCUM where SOS uses it).
    public var symbol: String {
        switch self {
        case .metre: "m"
        case .centimetre: "cm"
        case .foot: "ft"
        case .second: "s"
        case .degree: "deg"
        case .metrePerSecond: "m/s"
        case .centimetrePerSecond: "cm/s"
        case .knot: "kn"
        case .kilometrePerHour: "km/h"
        case .milePerHour: "mph"
        case .celsius: "Cel"
        case .fahrenheit: "[degF]"
        case .kelvin: "K"
        case .hectopascal: "hPa"
        case .pascal: "Pa"
        case .kilopascal: "kPa"
        case .inchOfMercury: "[in_i'Hg]"
        }
    }

    public var description: String { symbol }

    /// The unit a document names with `spelling`: a UCUM code of an SOS `swe:uom` (`m`, `s`,
    /// `deg`, `m/s`, `Cel`, `hPa`, …) or a word of an NDBC RSS line (`ft`, `knots`, `°F`, `in`,
    /// `mb`, `sec`, `°`, …). `nil` for anything else.
    public init?(spelling: String) {
        let key = spelling.trimmingSpaces()
        if let unit = BuoyUnit.exactSpellings[key] ?? BuoyUnit.caseInsensitiveSpellings[key.lowercased()] {
            self = unit
        } else {
            return nil
        }
    }

    /// Spellings whose case matters (`K` is kelvin; `k` is nothing).
    private static let exactSpellings: [String: BuoyUnit] = [
        "K": .kelvin, "Pa": .pascal, "kPa": .kilopascal, "hPa": .hectopascal, "C": .celsius, "F": .fahrenheit,
    ]

    private static let caseInsensitiveSpellings: [String: BuoyUnit] = {
        var table: [String: BuoyUnit] = [:]
        let spellings: [(BuoyUnit, [String])] = [
            (.metre, ["m", "meter", "meters", "metre", "metres"]),
            (.centimetre, ["cm", "centimeter", "centimeters", "centimetre", "centimetres"]),
            (.foot, ["ft", "feet", "foot", "[ft_i]"]),
            (.second, ["s", "sec", "secs", "second", "seconds"]),
            (.degree, ["deg", "degree", "degrees", "°", "degt", "degrees_true", "degree_true"]),
            (.metrePerSecond, ["m/s", "m s-1", "m.s-1", "mps", "meters/second", "m/sec"]),
            (.centimetrePerSecond, ["cm/s", "cm s-1", "cm.s-1"]),
            (.knot, ["kn", "kt", "kts", "knot", "knots", "[kn_i]"]),
            (.kilometrePerHour, ["km/h", "kph", "kmh", "km/hr"]),
            (.milePerHour, ["mph", "mi/h", "[mi_i]/h"]),
            (.celsius, ["cel", "degc", "°c", "celsius", "deg_c", "degree_celsius", "degrees_celsius"]),
            (.fahrenheit, ["degf", "°f", "[degf]", "fahrenheit", "deg_f"]),
            (.hectopascal, ["mb", "mbar", "millibar", "millibars", "hectopascal", "hectopascals"]),
            (.inchOfMercury, ["in", "inhg", "[in_i'hg]", "inch", "inches"]),
        ]
        for (unit, words) in spellings {
            for word in words {
                table[word] = unit
            }
        }
        return table
    }()
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
