import Foundation

/// Where the format handlers put what they read: the caller's callbacks, and the counts of
/// ``BuoyReadSummary``. Shared by the three formats so that they deliver, count and reject
/// in the same way.
final class ObservationSink {
    private let onObservation: (BuoyObservationRecord) throws -> Void
    private let onStation: (BuoyStationRecord) throws -> Void
    private(set) var observationCount = 0
    private(set) var stationCount = 0
    private(set) var ignoredValues: [String: Int] = [:]
    private(set) var rejectedValues: [String: Int] = [:]
    private(set) var rejectedRecords: [String: Int] = [:]
    private(set) var rejectedRecordExamples: [String: BuoyDocumentText] = [:]
    /// Records the document holds, delivered or not (see ``BuoyReadSummary/recordCount``).
    private(set) var recordCount = 0
    /// Stations of observation documents already delivered, so that each is delivered once,
    /// just before its first observation. Bounded by the number of stations in the document.
    private var announcedStations: Set<String> = []
    /// The station of the last observation, which needs no look-up in `announcedStations`.
    private var lastStation: String?

    /// The closures must stay valid while the sink is used (the reader makes them escape only
    /// for the duration of one read).
    init(
        onObservation: @escaping (BuoyObservationRecord) throws -> Void,
        onStation: @escaping (BuoyStationRecord) throws -> Void
    ) {
        self.onObservation = onObservation
        self.onStation = onStation
    }

    func deliver(_ station: BuoyStationRecord) throws {
        stationCount += 1
        try onStation(station)
    }

    /// Delivers `observation`, preceded by the station record `station()` the first time the
    /// observation's station appears in this document.
    func deliver(_ observation: BuoyObservationRecord, station: () -> BuoyStationRecord) throws {
        if observation.stationID != lastStation {
            lastStation = observation.stationID
            if announcedStations.insert(observation.stationID).inserted {
                try deliver(station())
            }
        }
        observationCount += 1
        try onObservation(observation)
    }

    func ignore(_ name: String, count: Int = 1) {
        guard count > 0 else { return }
        ignoredValues[name, default: 0] += count
    }

    func rejectValue(_ reason: String) {
        rejectedValues[reason, default: 0] += 1
    }

    /// Counts one record of the document, before it is delivered or rejected.
    func countRecord() {
        recordCount += 1
    }

    /// Counts a record skipped for `reason`; `example` (the text that made it unreadable, with
    /// its position) is kept for the first record of each reason only.
    func rejectRecord(_ reason: String, example: () -> BuoyDocumentText?) {
        rejectedRecords[reason, default: 0] += 1
        if rejectedRecordExamples[reason] == nil, let text = example() {
            rejectedRecordExamples[reason] = text
        }
    }

    /// `value` (in `unit`) converted to the property's unit and checked against its bounds;
    /// `nil`, counted as rejected, when it is unusable.
    func accept(_ value: Double, in unit: BuoyUnit?, for property: BuoyObservationProperty) -> Double? {
        guard let unit, unit.dimension == property.unit.dimension else {
            rejectValue(BuoyRejection.unsupportedUnit(property))
            return nil
        }
        let converted = unit.toModelUnit(value)
        if let reason = BuoyRejection.violation(converted, property) {
            rejectValue(reason)
            return nil
        }
        return converted
    }

    func summary(format: BuoyXMLFormat, byteCount: Int) -> BuoyReadSummary {
        BuoyReadSummary(
            format: format,
            observationCount: observationCount,
            stationCount: stationCount,
            recordCount: recordCount,
            ignoredValues: ignoredValues,
            rejectedValues: rejectedValues,
            rejectedRecords: rejectedRecords,
            rejectedRecordExamples: rejectedRecordExamples,
            byteCount: byteCount
        )
    }
}

/// Station identifiers as the model keys them: trimmed and upper-cased.
enum StationID {
    static func normalized(_ raw: String) -> String? {
        let trimmed = raw.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed.uppercased()
    }

    /// The station of an IOOS URN (`urn:ioos:station:wmo:41012` → `41012`), or of a sensor URN
    /// (`urn:ioos:sensor:wmo:41012::anemometer1` → `41012`); a plain identifier as it is.
    static func fromURN(_ urn: String) -> String? {
        var text = Substring(urn.trimmingSpaces())
        if let sensorSeparator = text.range(of: "::") {
            text = text[..<sensorSeparator.lowerBound]
        }
        if let colon = text.lastIndex(of: ":") {
            text = text[text.index(after: colon)...]
        }
        return normalized(String(text))
    }
}
