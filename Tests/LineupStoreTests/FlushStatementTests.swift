import Foundation
import LineupStore
import Testing

/// Statements a flush writes in its rows' transaction: both commit, or neither.
@Suite struct FlushStatementTests {
    /// The side table the statements write, made by a statement of its own. It changes no row,
    /// even after the rows of its flush.
    private static let createAcks = FlushStatement("CREATE TABLE acks (id BIGINT PRIMARY KEY)", expectedRowCount: 0)

    /// The first placeholder in the store's dialect.
    private func placeholder(_ store: StoreKind) -> String {
        store == .sqlite ? "?" : "$1"
    }

    private func insertAck(_ id: Int64, _ store: StoreKind) -> FlushStatement {
        FlushStatement("INSERT INTO acks (id) VALUES (\(placeholder(store)))", arguments: [.integer(id)], expectedRowCount: 1)
    }

    /// Changes nothing, and changes exactly one row only when the ack is there: a flush including
    /// it fails unless the ack was committed.
    private func ackExists(_ id: Int64, _ store: StoreKind) -> FlushStatement {
        FlushStatement("UPDATE acks SET id = id WHERE id = \(placeholder(store))", arguments: [.integer(id)], expectedRowCount: 1)
    }

    private func saveEntries(_ count: Int, in stack: TemporaryStack) throws {
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            for index in 0..<count { job.insertEntry("entry-\(index)") }
            try job.save()
        }
    }

    @Test(arguments: StoreKind.allCases) func rowsAndStatementsCommitTogether(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try saveEntries(3, in: stack)
        let report = try stack.container.flush(including: [
            Self.createAcks,
            // Runs after the rows, in their transaction: it sees them.
            FlushStatement("INSERT INTO acks (id) SELECT pk FROM \"Entry\"", expectedRowCount: 3),
        ])
        #expect(report.rowsWritten == 3)
        #expect(try stack.rowsOnDisk("Entry") == 3)
        try stack.container.flush(including: [FlushStatement("UPDATE acks SET id = id", expectedRowCount: 3)])
    }

    @Test(arguments: StoreKind.allCases) func anUnexpectedRowCountRollsTheRowsBackAndTheWriterKeepsThem(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try stack.container.flush(including: [Self.createAcks])
        try saveEntries(2, in: stack)
        let fence = FlushStatement("UPDATE acks SET id = id WHERE id = 8", expectedRowCount: 1)
        let error = #expect(throws: StoreError.self) {
            try stack.container.flush(including: [insertAck(7, store), fence])
        }
        #expect(error?.code == .unexpectedRowCount)
        #expect(error?.message.contains("UPDATE acks SET id = id WHERE id = 8") == true)
        #expect(error?.message.contains("changed 0 rows, not the 1") == true)
        #expect(try stack.rowsOnDisk("Entry") == 0, "the rows went with the statements")

        // The ack the first statement made was rolled back too: making it again succeeds.
        let report = try stack.container.flush(including: [insertAck(7, store)])
        #expect(report.rowsWritten == 2, "the writer kept the rows of the failed flush")
        #expect(try stack.rowsOnDisk("Entry") == 2)
    }

    @Test(arguments: StoreKind.allCases) func statementsAloneAreCommitted(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try stack.container.flush(including: [Self.createAcks])
        let report = try stack.container.flush(including: [insertAck(7, store)])
        #expect(report.rowsWritten == 0)
        try stack.container.flush(including: [ackExists(7, store)])
        #expect(throws: StoreError.self, "the ack is there once, not twice") {
            try stack.container.flush(including: [insertAck(7, store)])
        }
    }

    @Test(arguments: StoreKind.allCases) func aFailingStatementRollsTheRowsBackAndIsNamed(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        try saveEntries(2, in: stack)
        let error = #expect(throws: StoreError.self) {
            try stack.container.flush(including: [FlushStatement("UPDATE no_such_table SET done = 1")])
        }
        #expect(error?.code == (store == .sqlite ? .sqlite : .postgres))
        #expect(error?.message.contains("flush statement `UPDATE no_such_table SET done = 1` failed") == true)
        #expect(try stack.rowsOnDisk("Entry") == 0)
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 2)
    }
}
