import BuoyXML
import Testing

@Suite("Unit conversions")
struct UnitConversionTests {
    @Test("each unit converts to the model unit of its dimension by its exact factor")
    func conversions() {
        #expect(BuoyUnit.metre.toModelUnit(2.5) == 2.5)
        #expect(BuoyUnit.centimetre.toModelUnit(250) == 2.5)
        #expect(BuoyUnit.foot.toModelUnit(8.2) == 8.2 * 0.3048)
        #expect(BuoyUnit.foot.toModelUnit(10) == 3.048)
        #expect(BuoyUnit.second.toModelUnit(15) == 15)
        #expect(BuoyUnit.degree.toModelUnit(340) == 340)
        #expect(BuoyUnit.metrePerSecond.toModelUnit(8) == 8)
        #expect(BuoyUnit.centimetrePerSecond.toModelUnit(25.7) == 0.257)
        #expect(BuoyUnit.knot.toModelUnit(9.7) == 9.7 * 1852 / 3600)
        #expect(BuoyUnit.knot.toModelUnit(3600) == 1852)
        #expect(BuoyUnit.kilometrePerHour.toModelUnit(36) == 10)
        #expect(BuoyUnit.milePerHour.toModelUnit(3600) == 1609.344)
        #expect(BuoyUnit.celsius.toModelUnit(22.9) == 22.9)
        #expect(BuoyUnit.fahrenheit.toModelUnit(32) == 0)
        #expect(BuoyUnit.fahrenheit.toModelUnit(212) == 100)
        #expect(BuoyUnit.fahrenheit.toModelUnit(-40) == -40)
        #expect(BuoyUnit.kelvin.toModelUnit(273.15) == 0)
        #expect(BuoyUnit.hectopascal.toModelUnit(1021.2) == 1021.2)
        #expect(BuoyUnit.pascal.toModelUnit(101_325) == 1013.25)
        #expect(BuoyUnit.kilopascal.toModelUnit(101.3) == 1013)
        #expect(BuoyUnit.inchOfMercury.toModelUnit(1) == 33.8638866667)
        #expect(abs(BuoyUnit.inchOfMercury.toModelUnit(30.16) - 1021.33) < 0.01)
    }

    @Test("every unit's slope is the difference it makes per unit, and the model unit is its own")
    func slopesAndModelUnits() {
        for unit in BuoyUnit.allCases {
            let slope = unit.toModelUnit(1001) - unit.toModelUnit(1)
            #expect(abs(slope / 1000 - unit.modelUnitsPerUnit) < 1e-9, "\(unit)")
            #expect(unit.modelUnit.dimension == unit.dimension)
            #expect(unit.modelUnit.toModelUnit(12.25) == 12.25)
        }
        #expect(Set(BuoyUnit.allCases.map(\.modelUnit)) == [.metre, .second, .degree, .metrePerSecond, .celsius, .hectopascal])
    }

    @Test("the spellings of SOS (UCUM) and of RSS lines")
    func spellings() {
        let expected: [String: BuoyUnit] = [
            "m": .metre, "cm": .centimetre, "ft": .foot, "feet": .foot,
            "s": .second, "sec": .second,
            "deg": .degree, "°": .degree, "degrees": .degree,
            "m/s": .metrePerSecond, "cm/s": .centimetrePerSecond,
            "knots": .knot, "kts": .knot, "kn": .knot, "km/h": .kilometrePerHour, "mph": .milePerHour,
            "Cel": .celsius, "C": .celsius, "°C": .celsius, "degC": .celsius,
            "°F": .fahrenheit, "F": .fahrenheit, "[degF]": .fahrenheit,
            "K": .kelvin,
            "hPa": .hectopascal, "mb": .hectopascal, "mbar": .hectopascal,
            "Pa": .pascal, "kPa": .kilopascal,
            "in": .inchOfMercury, "inHg": .inchOfMercury,
            " knots ": .knot,
        ]
        for (spelling, unit) in expected {
            #expect(BuoyUnit(spelling: spelling) == unit, "\(spelling)")
        }
        for unit in BuoyUnit.allCases {
            #expect(BuoyUnit(spelling: unit.symbol) == unit, "\(unit.symbol)")
        }
        for unknown in ["", "psu", "%", "count", "nmi", "k", "furlongs"] {
            #expect(BuoyUnit(spelling: unknown) == nil, "\(unknown)")
        }
    }

    @Test("each property is held in the model unit of its dimension")
    func propertyUnits() {
        #expect(BuoyObservationProperty.waveHeight.unit == .metre)
        #expect(BuoyObservationProperty.dominantPeriod.unit == .second)
        #expect(BuoyObservationProperty.averagePeriod.unit == .second)
        #expect(BuoyObservationProperty.meanWaveDirection.unit == .degree)
        #expect(BuoyObservationProperty.windSpeed.unit == .metrePerSecond)
        #expect(BuoyObservationProperty.windDirection.unit == .degree)
        #expect(BuoyObservationProperty.windGust.unit == .metrePerSecond)
        #expect(BuoyObservationProperty.airTemperature.unit == .celsius)
        #expect(BuoyObservationProperty.waterTemperature.unit == .celsius)
        #expect(BuoyObservationProperty.pressure.unit == .hectopascal)
        #expect(BuoyObservationProperty.allCases.allSatisfy { $0.unit.modelUnit == $0.unit })
    }
}
