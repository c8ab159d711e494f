public import Foundation
public import LineupJobs
public import LineupStore
import LineupSpool

/// `statistics`: per location and per station (DESIGN §4), computed with SQL aggregates over the
/// saved rows, written as JSON to `output`, as a short text report beside it (`.txt`) and as a
/// picture (`.svg`, see ``StatisticsChart``).
/// Recomputed from scratch on every run.
public final class StatisticsTask: JobTask, @unchecked Sendable {
    // @unchecked Sendable: only immutable state beyond JobTask's own (see JobTask).

    public struct Parameters: Decodable, Sendable {
        public let output: String
    }

    public static let kind = "statistics"

    public let output: URL

    public init(request: JobRequest, parameters: Parameters) throws {
        self.output = try request.resolveOutput(parameters.output)
        super.init(request: request)
    }

    public override func run(in context: ManagedObjectContext) throws -> JobOutcome {
        // The sessions per location and month serve the report (best months) and the picture.
        let months = try StatisticsCalculator.locationMonths(in: context)
        let statistics = try StatisticsCalculator.compute(in: context, months: months)
        let chart = StatisticsChart.svg(try StatisticsChartData.compute(in: context, locationMonths: months))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let report = output.deletingPathExtension().appendingPathExtension("txt")
        let picture = output.deletingPathExtension().appendingPathExtension("svg")
        do {
            // Written aside, synced and renamed into place (`.atomic`); the renames are durable
            // once the directory is synced.
            try encoder.encode(statistics).write(to: output, options: .atomic)
            try Data(statistics.textReport.utf8).write(to: report, options: .atomic)
            try Data(chart.utf8).write(to: picture, options: .atomic)
            syncDirectory(containing: output)
        } catch {
            throw JobError(.jobFailed, "cannot write \(output.path): \(error.localizedDescription)", underlying: error)
        }
        return JobOutcome(
            summary: "statistics of \(statistics.locations.count) locations and \(statistics.stations.count) stations",
            counts: ["locations": statistics.locations.count, "stations": statistics.stations.count],
            outputs: [output.path, report.path, picture.path],
            details: ["report": .string(statistics.textReport)])
    }
}
