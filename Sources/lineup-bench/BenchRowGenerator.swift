import Foundation
import LineupTestSupport

/// One generated journal row, in the column order of ``BenchEntry``.
struct BenchRow {
    /// Seconds since 1970-01-01 UTC, as both stores keep dates.
    var date: Double
    var height: String
    var period: String
    var wind: String
    var location: String
    var rating: Int?
}

/// The same rows, in the same order, for Lineup and for the raw baseline: a SplitMix64 stream
/// with a fixed seed, so that runs (and machines) compare.
///
/// The strings come from small tables built once, and all fit Swift's inline small-string form,
/// so generating a row allocates nothing and costs both sides the same few nanoseconds.
struct BenchRowGenerator {
    static let defaultSeed: UInt64 = 0x5EED_2024_0C0F_FEE5

    /// SplitMix64, so that both sides of a benchmark get the same rows on every machine.
    private var random: SeededRandom
    private let heights = ["1-2 ft", "2-3 ft", "3-4 ft", "4-6 ft", "6-8 ft", "8-10 ft", "10-12 ft", "overhead", "flat"]
    private let periods = (6...20).map { "\($0) s" }
    private let winds = ["glassy", "offshore 5 kt", "offshore 10 kt", "cross 8 kt", "onshore 12 kt", "onshore 20 kt"]
    private let locations = [
        "Steamer Lane", "Mavericks", "Ocean Beach", "Pleasure Point", "Rincon", "Malibu", "Trestles",
        "Huntington Pier", "Blacks Beach", "Swamis", "Pipeline", "Sunset Beach", "Waimea Bay", "Hossegor",
        "Mundaka", "Supertubos", "Thurso East", "Bundoran", "Jeffreys Bay", "Uluwatu",
    ]
    /// 2010-01-01 00:00 UTC.
    private let firstDate: Double = 1_262_304_000
    /// Sessions spread over fifteen years.
    private let dateSpan: UInt64 = 15 * 365 * 86_400

    init(seed: UInt64 = BenchRowGenerator.defaultSeed) {
        random = SeededRandom(seed: seed)
    }

    private mutating func pick(_ table: [String]) -> String {
        table[Int(random.next() % UInt64(table.count))]
    }

    mutating func next() -> BenchRow {
        let date = firstDate + Double(random.next() % dateSpan)
        let height = pick(heights)
        let period = pick(periods)
        let wind = pick(winds)
        let location = pick(locations)
        // One session in ten has no rating, as in a real journal.
        let ratingDraw = Int(random.next() % 10)
        let rating: Int? = ratingDraw == 0 ? nil : 1 + ratingDraw % 5
        return BenchRow(date: date, height: height, period: period, wind: wind, location: location, rating: rating)
    }
}
