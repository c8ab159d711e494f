import Foundation
import LineupJobs
import LineupStore
import SurfJournal
import Testing

@Suite struct ExportAndStatisticsTaskTests {
    /// Three sessions at two locations and two observations of one station, flushed to disk.
    private func seeded() throws -> JournalFixture {
        let fixture = try JournalFixture()
        let context = fixture.container.newTaskContext(name: "seed")
        try context.performAndWait {
            for (date, location, rating, height) in [
                ("2024-01-05T08:00:00Z", "Steamer Lane", 4, "3.5"),
                ("2024-07-01T06:30:00.25Z", "Steamer Lane", 2, "1.5"),
                ("2024-03-10T12:00:00Z", "Rincon, CA", 5, "6"),
            ] {
                let entry = JournalEntry(context: context)
                entry.date = utc(date.replacingOccurrences(of: ".25", with: "")).addingTimeInterval(date.contains(".25") ? 0.25 : 0)
                entry.location = location
                entry.rating = rating
                entry.height = height
                entry.wind = "say \"hi\""
            }
            let station = BuoyStation(context: context)
            station.stationID = "46012"
            station.name = "Half Moon Bay"
            for (time, height, period) in [("2024-01-05T08:00:00Z", 2.0, 12.0), ("2024-01-05T09:00:00Z", 3.0, 14.0)] {
                let observation = BuoyObservation(context: context)
                observation.station = station
                observation.time = utc(time)
                observation.waveHeight = height
                observation.dominantPeriod = period
            }
            try context.save()
        }
        try fixture.container.flush()
        return fixture
    }

    @Test func journalCSVIsNewestFirstAndQuoted() throws {
        let fixture = try seeded()
        let outcome = try fixture.runSucceeding(#"{"kind": "export-csv", "entity": "JournalEntry", "output": "journal.csv"}"#)
        #expect(outcome.counts["rows"] == 3)
        let csv = try String(contentsOf: fixture.output.appendingPathComponent("journal.csv"), encoding: .utf8)
        #expect(
            csv == "date,location,rating,height,period,wind\r\n"
                + "2024-07-01T06:30:00.25Z,Steamer Lane,2,1.5,,\"say \"\"hi\"\"\"\r\n"
                + "2024-03-10T12:00:00Z,\"Rincon, CA\",5,6,,\"say \"\"hi\"\"\"\r\n"
                + "2024-01-05T08:00:00Z,Steamer Lane,4,3.5,,\"say \"\"hi\"\"\"\r\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.output.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary file is left behind")
    }

    @Test func observationCSVNamesTheStation() throws {
        let fixture = try seeded()
        _ = try fixture.runSucceeding(#"{"kind": "export-csv", "entity": "BuoyObservation", "output": "obs.csv"}"#)
        let lines = try String(contentsOf: fixture.output.appendingPathComponent("obs.csv"), encoding: .utf8)
            .components(separatedBy: "\r\n")
        #expect(lines[0].hasPrefix("station,time,waveHeight,dominantPeriod"))
        #expect(lines[1].hasPrefix("46012,2024-01-05T09:00:00Z,3.0,14.0"))
        #expect(lines.count == 4)
    }

    @Test func unknownEntityIsRefused() throws {
        let fixture = try JournalFixture()
        let error = #expect(throws: JobError.self) {
            try fixture.run(#"{"kind": "export-csv", "entity": "Surfboard", "output": "x.csv"}"#)
        }
        #expect(error?.code == .invalidParameters)
    }

    @Test func statisticsPerLocationAndStation() throws {
        let fixture = try seeded()
        let outcome = try fixture.runSucceeding(#"{"kind": "statistics", "output": "stats.json"}"#)
        #expect(outcome.counts == ["locations": 2, "stations": 1])
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let statistics = try decoder.decode(
            SurfStatistics.self, from: Data(contentsOf: fixture.output.appendingPathComponent("stats.json")))
        #expect(statistics.locations.map(\.location) == ["Rincon, CA", "Steamer Lane"])
        let lane = statistics.locations[1]
        #expect(lane.sessions == 2)
        #expect(lane.meanRating == 3)
        #expect(lane.meanWaveHeight == 2.5)
        #expect(lane.bestMonth == 1)
        let station = try #require(statistics.stations.first)
        #expect(station.stationID == "46012")
        #expect(station.observations == 2)
        #expect(station.firstTime == utc("2024-01-05T08:00:00Z"))
        #expect(station.lastTime == utc("2024-01-05T09:00:00Z"))
        #expect(station.waveHeight == SurfStatistics.Summary(minimum: 2, mean: 2.5, maximum: 3))
        #expect(station.dominantPeriod == SurfStatistics.Summary(minimum: 12, mean: 13, maximum: 14))
        let report = try String(contentsOf: fixture.output.appendingPathComponent("stats.txt"), encoding: .utf8)
        #expect(report.contains("Steamer Lane: 2 sessions, mean rating 3.00, mean height 2.50 ft, best month January"))
    }
}
