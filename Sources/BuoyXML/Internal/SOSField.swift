/// One leaf field (`swe:field` or `swe:coordinate` holding a simple component) of an SOS data
/// record, as declared before `swe:values`.
struct SOSField {
    /// `name` of the field or coordinate (`wind_speed`, `lat`), or the last path part of the
    /// component's `definition` when the field has no name.
    var name: String
    /// Local name of the component: `Quantity`, `Text`, `Time`, `Count`, `Category`, `Boolean`.
    var component: String
    var definition: String?
    var axisID: String?
    /// `swe:uom/@code`.
    var unitCode: String?
    /// `swe:value` given in the declaration: such a field is constant and has no column.
    var constant: String?

    enum Role {
        case station
        case time
        case latitude
        case longitude
        /// A field that describes the row but is no property (sensor, depth/altitude).
        case descriptive
        case property(BuoyObservationProperty, reversesDirection: Bool)
        case unknown
    }

    var role: Role {
        let lowered = name.lowercased()
        let definitionTail = definition.map { String($0.split(separator: "/").last ?? "").lowercased() } ?? ""
        if component == "Time" || lowered == "time" || lowered == "date_time" || lowered == "datetime" {
            return .time
        }
        switch lowered {
        case "station_id", "station", "stationid", "station_urn": return .station
        case "sensor_id", "sensor", "sensorid": return .descriptive
        case "lat", "latitude": return .latitude
        case "lon", "long", "longitude": return .longitude
        case "z", "depth", "altitude", "height", "elevation": return .descriptive
        default: break
        }
        switch axisID?.lowercased() {
        case "lat": return .latitude
        case "long", "lon": return .longitude
        case "h", "z": return .descriptive
        default: break
        }
        if let mapped = BuoyObservationProperty.sosField(named: name)
            ?? BuoyObservationProperty.sosField(named: definitionTail)
        {
            return .property(mapped.property, reversesDirection: mapped.reversesDirection)
        }
        return .unknown
    }
}

/// A field being declared: the `swe:field`/`swe:coordinate`/`swe:elementType` element at
/// `depth`, and what its direct component said so far.
struct SOSFieldBuilder {
    var depth: Int
    var name: String?
    var component: String?
    var definition: String?
    var axisID: String?
    var unitCode: String?
    var constant: String?

    var field: SOSField? {
        guard let component else { return nil }
        let fallbackName = definition.map { String($0.split(separator: "/").last ?? "") } ?? component
        return SOSField(
            name: name ?? fallbackName,
            component: component,
            definition: definition,
            axisID: axisID,
            unitCode: unitCode,
            constant: constant
        )
    }
}
