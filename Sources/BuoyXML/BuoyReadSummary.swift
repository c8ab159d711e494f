/// What one ``BuoyXMLReader/read(contentsOf:onObservation:onStation:)`` delivered and left out.
public struct BuoyReadSummary: Hashable, Sendable {
    /// The format recognised from the document's root element.
    public var format: BuoyXMLFormat
    /// How many ``BuoyObservationRecord`` values were delivered.
    public var observationCount: Int
    /// How many ``BuoyStationRecord`` values were delivered.
    public var stationCount: Int
    /// How many records the document holds, delivered or not: RSS `<item>` elements, SOS rows
    /// that are not blank, catalogue `<station/>` elements.
    public var recordCount: Int
    /// Values of properties the model does not hold, counted per property name as the document
    /// writes it: an SOS field name (`sea_water_salinity`, `sea_water_speed`), an RSS line
    /// label (`Dew Point`, `Tide`), a catalogue attribute (`pgm`, `elev`). Only present values
    /// count (an empty SOS token is not a value). In SOS documents that are not time series at
    /// the surface (a `timeSeriesProfile` such as ADCP currents, a glider `trajectoryProfile`),
    /// every value counts here, since none of them describes the surface at a fixed station.
    public var ignoredValues: [String: Int]
    /// Values that were present but not delivered, counted per reason (``BuoyRejection``):
    /// out of physical bounds, not a number, in an unsupported unit. The record that carried
    /// such a value is still delivered, with that field `nil`.
    public var rejectedValues: [String: Int]
    /// Rows or items that carried surf values but could not be delivered at all (no time, an
    /// unreadable time, no station), counted per reason; an SOS row with the wrong number of
    /// tokens counts whatever it holds, since its columns cannot be trusted.
    public var rejectedRecords: [String: Int]
    /// For each reason of ``rejectedRecords``, the text of the first record skipped for it,
    /// with its position: the unreadable time, the item title of an item without a station,
    /// the row of a row with the wrong number of tokens.
    public var rejectedRecordExamples: [String: BuoyDocumentText]
    /// Bytes of the file handed to libxml2.
    public var byteCount: Int

    /// Creates a summary.
    public init(
        format: BuoyXMLFormat,
        observationCount: Int = 0,
        stationCount: Int = 0,
        recordCount: Int = 0,
        ignoredValues: [String: Int] = [:],
        rejectedValues: [String: Int] = [:],
        rejectedRecords: [String: Int] = [:],
        rejectedRecordExamples: [String: BuoyDocumentText] = [:],
        byteCount: Int = 0
    ) {
        self.format = format
        self.observationCount = observationCount
        self.stationCount = stationCount
        self.recordCount = recordCount
        self.ignoredValues = ignoredValues
        self.rejectedValues = rejectedValues
        self.rejectedRecords = rejectedRecords
        self.rejectedRecordExamples = rejectedRecordExamples
        self.byteCount = byteCount
    }

    /// The sum of ``ignoredValues``.
    public var ignoredValueCount: Int { ignoredValues.values.reduce(0, +) }
    /// The sum of ``rejectedValues``.
    public var rejectedValueCount: Int { rejectedValues.values.reduce(0, +) }
    /// The sum of ``rejectedRecords``.
    public var rejectedRecordCount: Int { rejectedRecords.values.reduce(0, +) }
}
