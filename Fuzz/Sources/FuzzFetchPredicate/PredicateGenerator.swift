import Foundation
import FuzzSupport
import LineupStore

/// Builds a random predicate over FuzzRow from the input, through the public API only, and a
/// description of it for the crash report.
struct PredicateGenerator {
    let pools: ValuePools

    func predicate(_ input: inout FuzzInput, depth: Int = 0) -> (FetchPredicate<FuzzRow>, String) {
        switch input.choice(depth >= 3 ? 6 : 10) {
        case 0: return comparison(\.integer, "integer", pools.integer(&input), &input)
        case 1: return comparison(\.real, "real", pools.real(&input), &input)
        case 2: return comparison(\.text, "text", pools.text(&input), &input)
        case 3: return comparison(\.flag, "flag", pools.flag(&input), &input)
        case 4: return comparison(\.date, "date", pools.date(&input), &input)
        case 5:
            let substring = input.choice(2) == 0 ? (pools.text(&input) ?? "") : input.text(maximumLength: 4)
            return (.contains(\.text, substring), "text contains \(substring.debugDescription)")
        case 6:
            switch input.choice(3) {
            case 0:
                let values = (0...input.choice(3)).map { _ in pools.integer(&input) }
                return (.isIn(\.integer, values), "integer in \(values)")
            case 1:
                let values = (0...input.choice(3)).map { _ in pools.real(&input) }
                return (.isIn(\.real, values), "real in \(values)")
            default:
                let values = (0...input.choice(3)).map { _ in pools.text(&input) }
                return (.isIn(\.text, values), "text in \(values)")
            }
        case 7:
            let (left, leftText) = predicate(&input, depth: depth + 1)
            let (right, rightText) = predicate(&input, depth: depth + 1)
            return input.choice(2) == 0 ? (left && right, "(\(leftText) AND \(rightText))") : (left || right, "(\(leftText) OR \(rightText))")
        case 8:
            let (operand, text) = predicate(&input, depth: depth + 1)
            return (!operand, "NOT \(text)")
        default:
            return input.choice(2) == 0 ? (.all, "TRUE") : (.none, "FALSE")
        }
    }

    private func comparison<Value: StoreValueConvertible>(
        _ keyPath: KeyPath<FuzzRow, Value>, _ name: String, _ value: Value, _ input: inout FuzzInput
    ) -> (FetchPredicate<FuzzRow>, String) {
        let text = "\(name) %@ \(describe(value))"
        switch input.choice(6) {
        case 0: return (keyPath == value, text.replacingOccurrences(of: "%@", with: "=="))
        case 1: return (keyPath != value, text.replacingOccurrences(of: "%@", with: "!="))
        case 2: return (keyPath < value, text.replacingOccurrences(of: "%@", with: "<"))
        case 3: return (keyPath <= value, text.replacingOccurrences(of: "%@", with: "<="))
        case 4: return (keyPath > value, text.replacingOccurrences(of: "%@", with: ">"))
        default: return (keyPath >= value, text.replacingOccurrences(of: "%@", with: ">="))
        }
    }
}

/// A value for a crash report. A date as its interval since 1970: Foundation's
/// `Date.description` traps for the far-off dates the fuzzer makes.
func describe(_ value: Any) -> String {
    if let date = value as? Date { return "@\(date.timeIntervalSince1970)" }
    return String(describing: value)
}
