public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool
import Logging

/// `export-csv`: writes an entity as RFC 4180 CSV (header, quoting, ISO-8601 UTC dates), newest
/// first as the SurfJournal app lists it, read in batches on one snapshot so that memory stays
/// flat, into a temporary file renamed into place (a re-run replaces the file whole).
public final class ExportCSVTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public enum Entity: String, Decodable, Sendable, CaseIterable {
        case journalEntry = "JournalEntry"
        case buoyObservation = "BuoyObservation"
    }

    public struct Parameters: Decodable, Sendable {
        public let entity: Entity
        public let output: String
    }

    public static let kind = "export-csv"
    static let batchSize = 10_000

    public let entity: Entity
    public let output: URL

    public init(request: JobRequest, parameters: Parameters) throws {
        self.entity = parameters.entity
        self.output = try request.resolveOutput(parameters.output)
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        let rows: Int
        let bytes: Int
        switch entity {
        case .journalEntry:
            (rows, bytes) = try exportJournal(context)
        case .buoyObservation:
            (rows, bytes) = try exportObservations(context)
        }
        return JobOutcome(
            summary: "wrote \(rows) \(entity.rawValue) rows to \(output.lastPathComponent)",
            counts: ["rows": rows, "bytes": bytes], outputs: [output.path])
    }

    private func exportJournal(_ context: ManagedObjectContext) throws -> (Int, Int) {
        let request = FetchRequest<JournalEntry>(sortedBy: [.descending(\.date)])
        let properties = ["date", "location", "rating", "height", "period", "wind"]
        let entity = JournalEntry.entity
        let indexes = properties.map { entity.index(ofProperty: $0)! }
        return try export(request, header: properties, context: context) { values in
            indexes.map { CSVField(values[$0], type: entity.properties[$0].type) }
        }
    }

    private func exportObservations(_ context: ManagedObjectContext) throws -> (Int, Int) {
        var stationIDs: [Int64: String] = [:]
        try context.enumerate(FetchRequest<BuoyStation>(), batchSize: Self.batchSize) { stations in
            for station in stations { stationIDs[station.objectID.primaryKey] = station.stationID }
        }
        let request = FetchRequest<BuoyObservation>(sortedBy: [.descending(\.time)])
        let properties = [
            "time", "waveHeight", "dominantPeriod", "averagePeriod", "meanWaveDirection", "windSpeed",
            "windDirection", "windGust", "airTemperature", "waterTemperature", "pressure",
        ]
        let entity = BuoyObservation.entity
        let stationIndex = entity.index(ofProperty: "station")!
        let indexes = properties.map { entity.index(ofProperty: $0)! }
        return try export(request, header: ["station"] + properties, context: context) { values in
            var fields: [CSVField] = []
            fields.reserveCapacity(indexes.count + 1)
            if case let .integer(key) = values[stationIndex], let id = stationIDs[key] {
                fields.append(.text(id))
            } else {
                fields.append(.null)
            }
            for index in indexes {
                fields.append(CSVField(values[index], type: entity.properties[index].type))
            }
            return fields
        }
    }

    private func export<Object: ManagedObject>(
        _ request: FetchRequest<Object>, header: [String], context: ManagedObjectContext,
        fields: ([StoreValue]) -> [CSVField]
    ) throws -> (Int, Int) {
        let total = Int64(try context.count(for: request))
        reportProgress(completed: 0, total: total)
        let writer = try CSVWriter(destination: output, header: header)
        do {
            var done: Int64 = 0
            try context.enumerateObjectValues(request, batchSize: Self.batchSize) { rows in
                try checkCancellation()
                for (_, values) in rows {
                    try writer.writeRow(fields(values))
                }
                done += Int64(rows.count)
                reportProgress(completed: done, total: total)
            }
            let written = try writer.finish()
            return (written.rows, written.bytes)
        } catch {
            writer.cancel()
            throw error
        }
    }
}

extension CSVField {
    /// A stored value of a property of type `type` as a CSV field: dates (stored as seconds since
    /// 1970) become ISO-8601 UTC, blobs base64.
    init(_ value: StoreValue, type: AttributeType) {
        switch (value, type) {
        case (.null, _): self = .null
        case let (.real(seconds), .date): self = .date(Date(timeIntervalSince1970: seconds))
        case let (.integer(seconds), .date): self = .date(Date(timeIntervalSince1970: Double(seconds)))
        case let (.integer(value), _): self = .integer(Int(value))
        case let (.real(value), _): self = .double(value)
        case let (.text(value), _): self = .text(value)
        case let (.blob(value), _): self = .text(value.base64EncodedString())
        }
    }
}
