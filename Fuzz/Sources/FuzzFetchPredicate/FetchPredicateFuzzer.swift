// Differential libFuzzer target for FetchPredicate: the same random rows are saved to the
// store in one context and left unsaved in another, and one fetch in the second context
// evaluates a random predicate over both, in SQL for the saved rows and in memory for the
// unsaved ones. The two must match the same rows: the same NULL rules, the same comparisons of
// text, numbers and dates, the same LIKE. The saved rows must also read back as they were
// written, and a row with a NaN, which SQLite cannot keep, must be refused at save.

import Foundation
import FuzzSupport
import LineupStore
import Logging

/// Tags of the unsaved copies start here; a saved row's tag is its index.
private let unsavedTagBase = 1_000

private let container: PersistentContainer = {
    let path = scratchPath("predicates.sqlite")
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    do {
        return try PersistentContainer(
            url: URL(fileURLWithPath: path), model: ManagedObjectModel(FuzzRow.self),
            logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
    } catch {
        fatalError("cannot open the store at \(path): \(error)")
    }
}()

@main
enum FetchPredicateFuzzer {
    static func main() { runFuzzer(fuzzFetchPredicate) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzFetchPredicate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let pools = ValuePools(&input)
    let rows = (0...input.choice(8)).map { _ in RowValues(&input, pools: pools) }
    let (predicate, description) = PredicateGenerator(pools: pools).predicate(&input)
    do {
        if rows.contains(where: \.hasNaN) {
            try checkRefusesNaN(rows)
        }
        try compare(rows.map(\.storable), predicate, description)
    } catch {
        fatalError("the stack failed: \(error)")
    }
    return 0
}

private func checkRefusesNaN(_ rows: [RowValues]) throws {
    let context = container.newTaskContext(name: "rows-with-nan")
    context.performAndWait {
        for (index, row) in rows.enumerated() { row.insert(into: context, tag: index) }
        do {
            try context.save()
            fatalError("a row with a NaN was saved: \(rows)")
        } catch let error as StoreError {
            expect(error.code == .validationFailed && error.description.contains("NaN"), "a NaN refused with \(error)")
        } catch {
            fatalError("a NaN refused with \(error)")
        }
        context.rollback()
    }
}

private func compare(_ rows: [RowValues], _ predicate: FetchPredicate<FuzzRow>, _ description: String) throws {
    let saver = container.newTaskContext(name: "saved-rows")
    try saver.performAndWait {
        for (index, row) in rows.enumerated() { row.insert(into: saver, tag: index) }
        try saver.save()
    }
    _ = try container.flush()
    defer {
        // Leave the store empty for the next input.
        do {
            try saver.performAndWait { _ = try saver.execute(BatchDeleteRequest<FuzzRow>(predicate: .all)) }
        } catch {
            fatalError("cannot empty the store: \(error)")
        }
    }

    let context = container.newTaskContext(name: "unsaved-rows")
    try context.performAndWait {
        let stored = try context.fetch(FetchRequest<FuzzRow>(predicate: .all))
        for object in stored {
            let row = rows[object.tag]
            expect(
                object.integer == row.integer && same(object.real, row.real) && object.text == row.text
                    && object.flag == row.flag && same(object.date?.timeIntervalSince1970, row.date?.timeIntervalSince1970),
                "row \(object.tag) read back changed: \(row) became \(RowValues(object))")
        }
        expect(stored.count == rows.count, "\(rows.count) rows saved, \(stored.count) read back")

        for (index, row) in rows.enumerated() { row.insert(into: context, tag: unsavedTagBase + index) }
        let matched = try context.fetch(FetchRequest<FuzzRow>(predicate: predicate)).map(\.tag)
        let inSQL = Set(matched.filter { $0 < unsavedTagBase })
        let inMemory = Set(matched.filter { $0 >= unsavedTagBase }.map { $0 - unsavedTagBase })
        expect(
            inSQL == inMemory,
            "\(description): SQL matched rows \(inSQL.sorted()), memory matched \(inMemory.sorted()) of \(rows)")
        context.rollback()
    }
}

/// Equal, or both NaN: a value that reads back as it was written.
private func same(_ left: Double?, _ right: Double?) -> Bool {
    switch (left, right) {
    case (nil, nil): return true
    case (let left?, let right?): return left == right || (left.isNaN && right.isNaN)
    default: return false
    }
}
