import Dispatch
import Foundation
@testable import LineupPostgres
@testable import LineupStore
import LineupLocking
import Logging
import Testing

/// What only a shared database asks of the PostgreSQL store: several processes (here, several
/// stacks on one database) writing it at once, and what PostgreSQL cannot hold. Everything else
/// the stack's own tests check on both stores (`StoreKind`).
@Suite(.enabled(if: StoreKind.allCases.contains(.postgres), "no PostgreSQL server here"))
struct PostgresStoreTests {
    let logger = Logger(label: "test")

    private func open(_ place: TemporaryStoreURL, model: ManagedObjectModel = testModel) throws -> PersistentContainer {
        try PersistentContainer(postgresURL: place.url, model: model, logger: logger)
    }

    private func insertEntries(_ count: Int, _ prefix: String, into container: PersistentContainer) throws -> [ObjectID] {
        let context = container.newTaskContext(name: prefix)
        let ids = try context.performAndWait {
            let entries = (0..<count).map { context.insertEntry("\(prefix) \($0)", rating: $0) }
            try context.save()
            return entries.map(\.objectID)
        }
        try container.flush()
        return ids
    }

    @Test func twoStacksOnOneDatabaseTakeDisjointKeysAndSeeEachOthersRows() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let first = try open(place)
        defer { try? first.close() }
        let second = try open(place)
        defer { try? second.close() }
        #expect(first.storeIdentifier == second.storeIdentifier, "one store, opened twice")
        var keys: [Set<Int64>] = [[], []]
        for round in 0..<3 {
            for (index, container) in [first, second].enumerated() {
                keys[index].formUnion(try insertEntries(5_000, "round \(round) of \(index)", into: container).map(\.primaryKey))
            }
        }
        #expect(keys[0].count == 15_000 && keys[1].count == 15_000)
        #expect(keys[0].isDisjoint(with: keys[1]), "each took blocks of its own from the sequence")
        #expect(try first.rowCount(of: "Entry") == 30_000)
        #expect(try second.rowCount(of: "Entry") == 30_000)
    }

    @Test func aRowThatAnotherStackChangedMeetsAConflictAtTheStore() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let first = try open(place)
        defer { try? first.close() }
        let id = try insertEntries(1, "original", into: first)[0]
        let second = try open(place)
        defer { try? second.close() }

        // The first stack's change is in its main context, based on version 1, when the second
        // writes version 2: only the store's check at the first one's flush can see it.
        let stale = first.newTaskContext(name: "stale")
        try stale.performAndWait {
            (try stale.existingObject(with: id) as! Entry).location = "mine"
            try stale.save()
        }
        let other = second.newTaskContext(name: "other")
        try other.performAndWait {
            (try other.existingObject(with: id) as! Entry).location = "theirs"
            try other.save()
        }
        try second.flush()

        let error = #expect(throws: StoreError.self) { try first.flush() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.conflicts.map(\.objectID) == [id])
        let check = second.newTaskContext(name: "check")
        #expect(try check.performAndWait { (try check.existingObject(with: id) as! Entry).location } == "theirs")
    }

    /// Two stacks flush a change of the same row, based on the same version, at the same moment.
    /// A third connection holds the row locked until both have started, so that both read it
    /// before either writes: only the lock of the save's check (`FOR UPDATE`) makes the second
    /// wait and then see the first one's version. Without it both would write, and one change
    /// would be lost without a conflict.
    @Test func twoFlushesOfOneRowAtOnceMeetAConflictAndLoseNothing() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let stacks = try (0..<2).map { _ in try open(place) }
        defer { for stack in stacks { try? stack.close() } }
        let id = try insertEntries(1, "original", into: stacks[0])[0]
        for (index, stack) in stacks.enumerated() {
            let context = stack.newTaskContext(name: "writer \(index)")
            try context.performAndWait {
                (try context.existingObject(with: id) as! Entry).location = "stack \(index)"
                try context.save()
            }
        }
        let (configuration, location) = try PostgresStore.configuration(from: place.url)
        let holder = try PostgresSession.connect(configuration, location: location, logger: logger)
        defer { holder.close() }
        try holder.execute("BEGIN")
        try holder.query(#"SELECT pk FROM "Entry" WHERE pk = $1 FOR UPDATE"#, [.integer(id.primaryKey)])

        let outcomes = Locked<[Int: Result<Void, StoreError>]>([:])
        let done = DispatchGroup()
        for (index, stack) in stacks.enumerated() {
            done.enter()
            Thread.detachNewThread {
                let outcome: Result<Void, StoreError>
                do {
                    try stack.flush()
                    outcome = .success(())
                } catch {
                    outcome = .failure(error as! StoreError)
                }
                outcomes.withLock { $0[index] = outcome }
                done.leave()
            }
        }
        // Both flushes are under way once both wait for the row's lock.
        let waiting = #"SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype IN ('transactionid', 'tuple')"#
        let deadline = Date().addingTimeInterval(10)
        while try holder.query(waiting).first?.storeValues() != [.integer(2)], Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try holder.execute("COMMIT")
        done.wait()

        let results = outcomes.withLock { $0 }
        let succeeded = results.filter { if case .success = $0.value { return true } else { return false } }.map(\.key)
        #expect(succeeded.count == 1, "one flush wins: \(results)")
        let failures = results.values.compactMap { if case let .failure(error) = $0 { return error } else { return nil } }
        #expect(failures.map(\.code) == [.mergeConflict])
        // Read by a stack of its own: the loser's writer still holds its change for a next flush.
        let reader = try open(place)
        defer { try? reader.close() }
        let check = reader.newTaskContext(name: "check")
        let stored = try check.performAndWait { (try check.existingObject(with: id) as! Entry).location }
        #expect(stored == succeeded.first.map { "stack \($0)" }, "the winner's change is the one stored")
    }

    @Test func aKeyThatAnotherStackHoldsIsRefusedNamingTheRows() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let first = try open(place)
        defer { try? first.close() }
        let second = try open(place)
        defer { try? second.close() }
        for container in [first, second] {
            let context = container.newTaskContext(name: "station")
            try context.performAndWait {
                Station(context: context).stationID = "46042"
                try context.save()
            }
        }
        try first.flush()
        let error = #expect(throws: StoreError.self) { try second.flush() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.description.contains("stationID") == true, "\(String(describing: error))")
        #expect(try first.rowCount(of: "Station") == 1)
    }

    @Test func aDatabaseWithTablesLineupDidNotCreateIsRefusedAndLeftAsItWas() throws {
        let place = try TemporaryStoreURL(.postgres)
        defer { extendLifetime(place) }
        let (configuration, location) = try PostgresStore.configuration(from: place.url)
        let session = try PostgresSession.connect(configuration, location: location, logger: logger)
        defer { session.close() }
        try session.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, name TEXT)")
        try session.execute("INSERT INTO customers VALUES (1, 'Ada')")

        let error = #expect(throws: StoreError.self) { try open(place) }
        #expect(error?.code == .storeNotOurs)
        #expect(error?.message.contains("customers") == true)
        #expect(error?.message.contains(place.location) == true)
        let tables = try session.query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()")
            .map { try $0.storeValues() }
        #expect(tables == [[.text("customers")]], "nothing was created")
        let sequences = try session.query("SELECT count(*) FROM pg_class WHERE relkind = 'S'").map { try $0.storeValues() }
        #expect(sequences == [[.integer(0)]])
    }

    @Test func aNULInTextIsRefusedNamingTheAttributeAndNothingIsWritten() throws {
        let stack = try TemporaryStack(.postgres)
        let context = stack.container.newTaskContext(name: "nul")
        try context.performAndWait {
            context.insertEntry("fine")
            context.insertEntry("a\0b")
            try context.save()
        }
        let error = #expect(throws: StoreError.self) { try stack.container.flush() }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("Entry.location") == true)
        #expect(try stack.rowsOnDisk("Entry") == 0, "the save is one transaction")
    }

    @Test func aSaveLargerThanOneStatementCanBindIsWrittenWhole() throws {
        // Entry binds 7 values a row: 20,000 rows take many INSERT statements, in one transaction.
        let stack = try TemporaryStack(.postgres)
        let ids = try insertEntries(20_000, "bulk", into: stack.container)
        #expect(try stack.rowsOnDisk("Entry") == 20_000)
        let reader = stack.container.newTaskContext(name: "reader")
        let last = try reader.performAndWait { try reader.existingObject(with: ids[19_999]) as! Entry }
        #expect(reader.performAndWait { (last.location, last.rating) } == ("bulk 19999", 19_999))
    }
}
