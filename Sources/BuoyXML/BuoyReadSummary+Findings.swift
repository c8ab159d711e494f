extension BuoyReadSummary {
    /// The records the read skipped, how many for each reason, and the first one of each:
    /// `2 records skipped: 2 with unreadable time (first "February 30, 2022 5:20 am CST" at
    /// line 22, column 9)`; `nil` when none was skipped.
    public var skippedRecordsDescription: String? {
        guard rejectedRecordCount > 0 else { return nil }
        let reasons = rejectedRecords.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { reason, count in
            var part = "\(count) \(Self.shortReason(reason))"
            if let example = rejectedRecordExamples[reason] {
                part += " (first \(example))"
            }
            return part
        }
        let records = rejectedRecordCount == 1 ? "1 record" : "\(rejectedRecordCount) records"
        return "\(records) skipped: " + reasons.joined(separator: "; ")
    }

    /// What a read that delivered nothing found, for a ``BuoyXMLError/Code/nothingReadable``
    /// error: how many records the document holds, why each was skipped (with the first
    /// example of each reason), and the properties of values that the model does not hold.
    var nothingReadableMessage: String {
        let wanted = format == .ndbcActiveStations ? "station" : "observation"
        var message = "no \(wanted) the importer can read: found \(recordsFound)"
        if let skipped = skippedRecordsDescription {
            message += "; \(skipped)"
        }
        let withoutSurfValue = recordCount - rejectedRecordCount
        if format != .ndbcActiveStations, withoutSurfValue > 0 {
            message += rejectedRecordCount == 0 ? ", none" : "; \(withoutSurfValue)"
            message += " with a value of a property the model holds"
        }
        if ignoredValueCount > 0 {
            let names = ignoredValues.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            var listed = names.prefix(4).map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            if names.count > 4 {
                listed += " and \(names.count - 4) more"
            }
            message += "; values of other properties: \(listed)"
        }
        if rejectedValueCount > 0 {
            message += "; \(rejectedValueCount) values out of bounds or unreadable"
        }
        return message
    }

    /// `2 RSS items`, `300 SOS rows`, `no <station/> element`.
    private var recordsFound: String {
        let (one, many) =
            switch format {
            case .ndbcLatestObservationRSS: ("RSS item", "RSS items")
            case .ndbcSOSObservationCollection: ("SOS row", "SOS rows")
            case .ndbcActiveStations: ("<station/> element", "<station/> elements")
            }
        switch recordCount {
        case 0: return "no \(one)"
        case 1: return "1 \(one)"
        default: return "\(recordCount) \(many)"
        }
    }

    /// `record with unreadable time` → `with unreadable time`, so that a count reads well
    /// before it.
    private static func shortReason(_ reason: String) -> String {
        reason.hasPrefix("record ") ? String(reason.dropFirst("record ".count)) : reason
    }
}
