/// Reads an NDBC IOOS SOS GetObservation response: `om:ObservationCollection` of
/// `om:member/om:Observation`, each with an `om:result` holding a SWE 1.0 data stream.
///
/// The field declarations (`swe:field`, and `swe:coordinate` inside a location vector) come
/// before `swe:values`. A leaf field that declares its own `swe:value` is a constant of the
/// whole result (the corpus's `station_id`, and the position of a fixed buoy); every other
/// leaf field is one column of the rows, in declaration order. Field names are CF standard
/// names mapped by ``BuoyObservationProperty``; units come from `swe:uom/@code`.
///
/// Only a result whose feature type (the data stream's `definition`, or the feature of
/// interest's discrete-sampling-geometry name) is `timeSeries`, or unstated, describes the sea
/// surface at a fixed station. In any other (`timeSeriesProfile` ADCP currents at depth, a
/// glider's `trajectoryProfile`) every value counts as ignored.
///
/// The root element alone does not make a document SOS: O&M 1.0 collections carry all kinds of
/// results. A collection in which no `om:result` holds a `swe:DataStream` or `swe:DataArray` is
/// refused at its end as an unsupported format, naming what its members hold instead.
final class SOSObservationHandler: SAXEventHandler {
    private unowned let session: SAXSession
    private let sink: ObservationSink
    private let limits: BuoyXMLLimits

    private var depth = 0
    private var observationDepth: Int?
    private var observationName: String?
    private var featureOfInterestDepth: Int?
    private var featureType: String?
    private var resultDepth: Int?
    private var fieldStack: [SOSFieldBuilder] = []
    private var fields: [SOSField] = []
    private var encoding = SOSEncoding()
    private var table: SOSValuesTable?
    /// `om:member` elements of the collection.
    private var memberCount = 0
    private var inMember = false
    /// `om:result` elements that hold a SWE data stream or array: what makes the document SOS.
    private var sweResultCount = 0
    /// What the members and results of a collection that is not SOS hold, in Clark notation,
    /// first seen first (a few, for the error message).
    private var foreignContent: [String] = []

    private enum Capture {
        case none
        case observationName
        case featureTypeName
        case constantValue
        case values
    }

    private var capture = Capture.none
    private var captureDepth = 0
    private let text: ByteBuffer

    init(session: SAXSession, sink: ObservationSink, limits: BuoyXMLLimits) {
        self.session = session
        self.sink = sink
        self.limits = limits
        self.text = ByteBuffer(initialCapacity: 256, limit: limits.maximumTextBytes)
    }

    private static func isSWE(_ element: SAXElement) -> Bool {
        SAXName.hasPrefix(element.namespace, "http://www.opengis.net/swe/")
    }

    private static func isSWE(_ namespace: UnsafePointer<UInt8>?) -> Bool {
        SAXName.hasPrefix(namespace, "http://www.opengis.net/swe/")
    }

    /// A `swe:DataStream` or `swe:DataArray`: the result of an SOS observation.
    private static func isSWEStream(_ element: SAXElement) -> Bool {
        isSWE(element)
            && (SAXName.equals(element.localName, "DataStream") || SAXName.equals(element.localName, "DataArray"))
    }

    private func noteForeignContent(_ element: SAXElement, prefix: String = "") {
        guard foreignContent.count < 3 else { return }
        let name = element.namespaceString.map { "{\($0)}" } ?? ""
        let entry = prefix + name + element.localNameString
        if !foreignContent.contains(entry) {
            foreignContent.append(entry)
        }
    }

    func startElement(_ element: SAXElement) throws {
        depth += 1
        if depth == 1 {
            inMember = element.isNamed("member", namespace: "http://www.opengis.net/om/1.0")
            if inMember { memberCount += 1 }
        } else if depth == 2, inMember, !element.isNamed("Observation", namespace: "http://www.opengis.net/om/1.0") {
            noteForeignContent(element)
        } else if let resultDepth, depth == resultDepth + 1, !Self.isSWEStream(element) {
            noteForeignContent(element, prefix: "om:result holding ")
        }
        if element.isNamed("Observation", namespace: "http://www.opengis.net/om/1.0") {
            observationDepth = depth
            observationName = nil
            featureType = nil
            return
        }
        guard let observationDepth else { return }
        if element.isNamed("name", namespace: "http://www.opengis.net/gml") {
            if depth == observationDepth + 1 {
                startCapture(.observationName)
            } else if featureOfInterestDepth != nil,
                element.attribute("codeSpace")?.contains("discrete-sampling-geometries") == true
            {
                startCapture(.featureTypeName)
            }
            return
        }
        if element.isNamed("featureOfInterest", namespace: "http://www.opengis.net/om/1.0") {
            featureOfInterestDepth = depth
            return
        }
        if element.isNamed("result", namespace: "http://www.opengis.net/om/1.0") {
            resultDepth = depth
            fieldStack.removeAll()
            fields.removeAll()
            encoding = SOSEncoding()
            return
        }
        guard resultDepth != nil, Self.isSWE(element) else { return }
        try startSWEElement(element)
    }

    private func startSWEElement(_ element: SAXElement) throws {
        if SAXName.equals(element.localName, "field")
            || SAXName.equals(element.localName, "coordinate")
            || SAXName.equals(element.localName, "elementType")
        {
            guard fieldStack.count < 64 else { throw session.error(.limitExceeded, "SOS fields nested too deeply") }
            fieldStack.append(SOSFieldBuilder(depth: depth, name: element.attribute("name")))
            return
        }
        if let resultDepth, depth == resultDepth + 1, Self.isSWEStream(element) {
            sweResultCount += 1
        }
        if SAXName.equals(element.localName, "DataStream") || SAXName.equals(element.localName, "DataArray")
            || SAXName.equals(element.localName, "DataRecord")
        {
            if featureType == nil, let definition = element.attribute("definition") {
                featureType = Self.samplingGeometry(definition)
            }
            return
        }
        if SAXName.equals(element.localName, "TextEncoding") {
            if let token = element.attribute("tokenSeparator"), !token.isEmpty {
                encoding.tokenSeparator = SOSEncoding.separator(token)
            }
            if let block = element.attribute("blockSeparator"), !block.isEmpty {
                encoding.blockSeparator = SOSEncoding.separator(block)
            }
            if let decimal = element.attribute("decimalSeparator"), decimal.utf8.count == 1 {
                encoding.decimalSeparator = decimal.utf8.first!
            }
            guard !encoding.tokenSeparator.isEmpty, !encoding.blockSeparator.isEmpty,
                encoding.tokenSeparator != encoding.blockSeparator
            else {
                throw session.error(.unsupportedFormat, "swe:TextEncoding needs distinct token and block separators")
            }
            return
        }
        if SAXName.equals(element.localName, "values") {
            try startValues()
            return
        }
        guard var builder = fieldStack.last else { return }
        let offset = depth - builder.depth
        if offset == 1 {
            // The component of the field: a leaf kind, or a container (Vector, DataRecord).
            let name = element.localNameString
            switch name {
            case "Quantity", "Text", "Time", "Count", "Category", "Boolean":
                builder.component = name
                builder.definition = element.attribute("definition")
                builder.axisID = element.attribute("axisID")
            default:
                break
            }
        } else if offset == 2, builder.component != nil {
            if SAXName.equals(element.localName, "uom") {
                builder.unitCode = element.attribute("code")
            } else if SAXName.equals(element.localName, "value") {
                startCapture(.constantValue)
            }
        }
        fieldStack[fieldStack.count - 1] = builder
    }

    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws {
        defer { depth -= 1 }
        if capture != .none, depth == captureDepth {
            try endCapture()
            return
        }
        if let builder = fieldStack.last, builder.depth == depth {
            fieldStack.removeLast()
            if let field = builder.field {
                guard fields.count < limits.maximumFields else {
                    throw session.error(.limitExceeded, "more than \(limits.maximumFields) SOS fields")
                }
                fields.append(field)
            }
            return
        }
        if depth == resultDepth {
            resultDepth = nil
        } else if depth == featureOfInterestDepth {
            featureOfInterestDepth = nil
        } else if depth == observationDepth {
            observationDepth = nil
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        switch capture {
        case .none:
            return
        case .values:
            try table?.consume(bytes)
        case .observationName, .featureTypeName, .constantValue:
            guard text.append(bytes) else { throw textTooLong() }
        }
    }

    func endDocument() throws {
        guard sweResultCount == 0 else { return }
        let members =
            switch memberCount {
            case 0: "it has no om:member"
            case 1: "its one om:member holds no"
            default: "none of its \(memberCount) om:member elements holds an"
            }
        var message =
            "root element {http://www.opengis.net/om/1.0}ObservationCollection is an O&M collection but not an IOOS SOS response: "
            + members + (memberCount == 0 ? "" : " om:Observation whose om:result is a swe:DataStream or swe:DataArray")
        if !foreignContent.isEmpty {
            message += " (found \(foreignContent.joined(separator: ", ")))"
        }
        throw BuoyXMLError(code: .unsupportedFormat, file: session.path, message: message)
    }

    private func startCapture(_ kind: Capture) {
        capture = kind
        captureDepth = depth
        text.removeAll()
    }

    private func endCapture() throws {
        let kind = capture
        capture = .none
        switch kind {
        case .none:
            break
        case .observationName:
            observationName = text.string.trimmingSpaces()
        case .featureTypeName:
            featureType = featureType ?? Self.samplingGeometry(text.string)
        case .constantValue:
            if !fieldStack.isEmpty {
                fieldStack[fieldStack.count - 1].constant = text.string.trimmingSpaces()
            }
        case .values:
            try table?.finish()
            table = nil
        }
        text.removeAll()
    }

    /// The CF discrete sampling geometry a definition names (`timeSeries`,
    /// `timeSeriesProfile`, `trajectoryProfile`, …), lower-cased; `nil` for other definitions
    /// (such as an IOOS record definition URL).
    private static func samplingGeometry(_ definition: String) -> String? {
        let tail = definition.trimmingSpaces().split(whereSeparator: { $0 == "/" || $0 == ":" || $0 == "#" }).last
        guard let tail else { return nil }
        let name = tail.lowercased()
        let geometries: Set<String> = ["point", "timeseries", "trajectory", "profile", "timeseriesprofile", "trajectoryprofile"]
        return geometries.contains(name) ? name : nil
    }

    private func textTooLong() -> BuoyXMLError {
        session.error(.limitExceeded, "a text is longer than \(limits.maximumTextBytes) bytes")
    }

    /// The column plan of the rows that follow, from the fields declared so far.
    private func startValues() throws {
        let surface = featureType == nil || featureType == "timeseries"
        var columns: [SOSValuesTable.Column] = []
        var ignoredNames: [String] = []
        func ignore(_ name: String) {
            if let index = ignoredNames.firstIndex(of: name) {
                columns.append(.ignored(index))
            } else {
                columns.append(.ignored(ignoredNames.count))
                ignoredNames.append(name)
            }
        }
        var constantStation = observationName.flatMap(StationID.fromURN)
        var latitude: Double?
        var longitude: Double?
        for field in fields {
            let role = field.role
            if let constant = field.constant {
                switch role {
                case .station:
                    constantStation = StationID.fromURN(constant) ?? constantStation
                case .latitude:
                    latitude = Double(constant).flatMap { (-90...90).contains($0) ? $0 : nil }
                case .longitude:
                    longitude = Double(constant).flatMap { (-180...360).contains($0) ? ($0 > 180 ? $0 - 360 : $0) : nil }
                default:
                    break
                }
                continue
            }
            switch role {
            case .station:
                columns.append(.station)
            case .time:
                columns.append(.time)
            case .latitude, .longitude, .descriptive:
                columns.append(.skipped)
            case .property(let property, let reversesDirection):
                if surface {
                    // A quantity without a unit is taken to be in the unit the model stores.
                    let unit: BuoyUnit? = if let code = field.unitCode { BuoyUnit(spelling: code) } else { property.unit }
                    columns.append(.property(property, unit: unit, reversesDirection: reversesDirection))
                } else {
                    ignore(field.name)
                }
            case .unknown:
                ignore(field.name)
            }
        }
        let limit = limits.maximumTextBytes
        table = SOSValuesTable(
            columns: columns,
            ignoredNames: ignoredNames,
            encoding: encoding,
            sink: sink,
            constantStation: constantStation,
            latitude: latitude,
            longitude: longitude,
            limits: limits,
            valuesPosition: session.position,
            tooLong: { [unowned session] in session.error(.limitExceeded, "an SOS token is longer than \(limit) bytes") }
        )
        startCapture(.values)
    }
}
