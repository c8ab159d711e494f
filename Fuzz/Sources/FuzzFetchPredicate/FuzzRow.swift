import Foundation
import FuzzSupport
import LineupStore

/// The entity the predicates run over: one attribute of each comparable type, all optional so
/// that NULL takes part, and a tag that says which row an object is.
final class FuzzRow: ManagedObject {
    @Attribute("tag") var tag: Int = 0
    @Attribute("integer") var integer: Int?
    @Attribute("real") var real: Double?
    @Attribute("text") var text: String?
    @Attribute("flag") var flag: Bool?
    @Attribute("date") var date: Date?
}

/// A few values of each type, drawn once per input; rows and predicates pick from them (or
/// NULL), so that equal values, and so every comparison's edge, come up often.
struct ValuePools {
    var integers: [Int] = []
    var reals: [Double] = []
    var texts: [String] = []
    var dates: [Date] = []

    init(_ input: inout FuzzInput) {
        for _ in 0..<3 {
            integers.append(Int(input.int64()))
            reals.append(input.double())
            texts.append(input.text(maximumLength: 12))
            dates.append(Date(timeIntervalSince1970: input.double()))
        }
    }

    func integer(_ input: inout FuzzInput) -> Int? { pick(integers, &input) }
    func real(_ input: inout FuzzInput) -> Double? { pick(reals, &input) }
    func text(_ input: inout FuzzInput) -> String? { pick(texts, &input) }
    func date(_ input: inout FuzzInput) -> Date? { pick(dates, &input) }
    func flag(_ input: inout FuzzInput) -> Bool? { [true, false, nil][input.choice(3)] }

    private func pick<Value>(_ values: [Value], _ input: inout FuzzInput) -> Value? {
        let index = input.choice(values.count + 1)
        return index < values.count ? values[index] : nil
    }
}

/// One row's values, to insert the same row twice: once saved to the store, once left unsaved.
struct RowValues: CustomStringConvertible {
    var integer: Int?
    var real: Double?
    var text: String?
    var flag: Bool?
    var date: Date?

    init(_ input: inout FuzzInput, pools: ValuePools) {
        integer = pools.integer(&input)
        real = pools.real(&input)
        text = pools.text(&input)
        flag = pools.flag(&input)
        date = pools.date(&input)
    }

    var description: String {
        "(integer \(describe(integer as Any)), real \(describe(real as Any)), text \(describe(text as Any)), flag \(describe(flag as Any)), date \(date.map { describe($0) } ?? "nil"))"
    }

    /// Whether a value is NaN (a real, or a date's interval), which the store refuses to save.
    var hasNaN: Bool {
        real?.isNaN == true || date?.timeIntervalSince1970.isNaN == true
    }

    /// The row with its NaNs made NULL: what can be saved.
    var storable: RowValues {
        var row = self
        if row.real?.isNaN == true { row.real = nil }
        if row.date?.timeIntervalSince1970.isNaN == true { row.date = nil }
        return row
    }

    init(_ object: FuzzRow) {
        integer = object.integer
        real = object.real
        text = object.text
        flag = object.flag
        date = object.date
    }

    func insert(into context: ManagedObjectContext, tag: Int) {
        let row = FuzzRow(context: context)
        row.tag = tag
        row.integer = integer
        row.real = real
        row.text = text
        row.flag = flag
        row.date = date
    }
}
