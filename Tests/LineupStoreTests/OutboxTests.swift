import Foundation
import LineupStore
import Testing

/// Messages enqueued in a context (the jobs layer's jobs enqueued with the data) move as inserted
/// rows do: up with each save, to the disk in the flush's transaction, and nowhere when their
/// context is rolled back, reset or dropped.
@Suite struct OutboxTests {
    private static let channel = "test"

    private func message(_ key: String) -> OutboxMessage {
        OutboxMessage(channel: Self.channel, key: key, body: Data("body of \(key)".utf8))
    }

    /// The keys of the outbox's committed entries, in order.
    private func outboxKeys(_ stack: TemporaryStack) throws -> [String] {
        try stack.container.outboxEntries(on: Self.channel, limit: 100).map(\.message.key)
    }

    @Test(arguments: StoreKind.allCases) func aMessageReachesTheDiskWithTheRowsOfItsFlush(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            job.insertEntry("Steamer Lane")
            job.enqueue(message("first"))
            job.enqueue(contentsOf: [message("second"), message("third")])
            try job.save()
            #expect(job.pendingOutboxMessages.isEmpty, "the save moved them into the main context")
        }
        #expect(stack.main.performAndWait { stack.main.pendingOutboxMessages.map(\.key) } == ["first", "second", "third"])
        #expect(try outboxKeys(stack) == [], "not before the flush")

        let report = try stack.container.flush()
        #expect(report.rowsWritten == 1 && report.messagesWritten == 3)
        #expect(try stack.rowsOnDisk("Entry") == 1)
        let entries = try stack.container.outboxEntries(on: Self.channel, limit: 100)
        #expect(entries.map(\.message) == [message("first"), message("second"), message("third")])
        #expect(try stack.container.outboxEntries(on: "another channel", limit: 100).isEmpty)

        // Written once: the next flush has nothing to write.
        #expect(try stack.container.flush().messagesWritten == 0)
        #expect(try outboxKeys(stack) == ["first", "second", "third"])

        try stack.container.removeFromOutbox([entries[0].id, entries[2].id])
        #expect(try outboxKeys(stack) == ["second"])
    }

    @Test(arguments: StoreKind.allCases) func aMessageWithoutAnyChangedRowIsWrittenToo(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            job.enqueue(message("alone"))
            try job.save()
        }
        let report = try stack.container.flush()
        #expect(report.rowsWritten == 0 && report.messagesWritten == 1)
        #expect(try outboxKeys(stack) == ["alone"])
    }

    @Test(arguments: StoreKind.allCases) func rollbackResetAndAnUnsavedContextEnqueueNothing(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let rolledBack = stack.container.newTaskContext(name: "rolled-back")
        try rolledBack.performAndWait {
            rolledBack.insertEntry("rolled back")
            rolledBack.enqueue(message("rolled-back"))
            rolledBack.rollback()
            #expect(rolledBack.pendingOutboxMessages.isEmpty)
            try rolledBack.save()
        }
        let reset = stack.container.newTaskContext(name: "reset")
        try reset.performAndWait {
            reset.enqueue(message("reset"))
            reset.reset()
            try reset.save()
        }
        do {
            let dropped = stack.container.newTaskContext(name: "dropped")
            dropped.performAndWait {
                dropped.insertEntry("dropped")
                dropped.enqueue(message("dropped"))
            }
        }
        // The main context's own rollback drops what children saved into it.
        let saved = stack.container.newTaskContext(name: "saved")
        try saved.performAndWait {
            saved.enqueue(message("saved-then-rolled-back-in-main"))
            try saved.save()
        }
        stack.main.performAndWait { stack.main.rollback() }

        #expect(try stack.container.flush().messagesWritten == 0)
        #expect(try outboxKeys(stack) == [])
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    /// A grandchild's save reaches its parent only; dropping the parent unsaved drops the message
    /// with the rows.
    @Test(arguments: StoreKind.allCases) func aChildsSavedMessageGoesWithItsParentWhenTheParentIsDropped(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        do {
            let parent = stack.container.newTaskContext(name: "parent")
            let child = parent.newChildContext(name: "child")
            try child.performAndWait {
                child.insertEntry("child's")
                child.enqueue(message("from-the-child"))
                try child.save()
            }
            #expect(parent.performAndWait { parent.pendingOutboxMessages.map(\.key) } == ["from-the-child"])
        }
        #expect(try stack.container.flush().messagesWritten == 0)
        #expect(try outboxKeys(stack) == [])
        #expect(try stack.rowsOnDisk("Entry") == 0)

        // Saved on up, it is written, after the parent's own.
        let parent = stack.container.newTaskContext(name: "parent-saved")
        let child = parent.newChildContext(name: "child-saved")
        parent.performAndWait { parent.enqueue(message("parent's")) }
        try child.performAndWait {
            child.enqueue(message("child's"))
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        try stack.container.flush()
        #expect(try outboxKeys(stack) == ["parent's", "child's"])
    }

    /// A flush whose transaction fails writes no message; the writer keeps them, with its rows,
    /// and the next flush writes each once.
    @Test(arguments: StoreKind.allCases) func aFailedFlushWritesNoMessageAndTheNextWritesThemOnce(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            job.insertEntry("kept for the next flush")
            job.enqueue(message("retried"))
            try job.save()
        }
        let fence = FlushStatement("UPDATE lineup_metadata SET value = value WHERE key = 'no such key'", expectedRowCount: 1)
        let error = #expect(throws: StoreError.self) { try stack.container.flush(including: [fence]) }
        #expect(error?.code == .unexpectedRowCount)
        #expect(try outboxKeys(stack) == [])
        #expect(try stack.rowsOnDisk("Entry") == 0)

        let report = try stack.container.flush()
        #expect(report.rowsWritten == 1 && report.messagesWritten == 1)
        #expect(try outboxKeys(stack) == ["retried"])
        #expect(try stack.container.flush().messagesWritten == 0)
        #expect(try outboxKeys(stack) == ["retried"])
    }

    /// A save that its parent refuses (a conflict under `.error`) moves neither the rows nor the
    /// messages: both stay in the child.
    @Test func aRefusedSaveKeepsItsMessages() throws {
        let stack = try TemporaryStack()
        let seed = stack.container.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("seed")
            try seed.save()
            return entry.objectID
        }
        try stack.container.flush()
        let first = stack.container.newTaskContext(name: "first")
        let second = stack.container.newTaskContext(name: "second")
        try first.performAndWait { (try first.existingObject(with: id) as! Entry).rating = 1 }
        try second.performAndWait { (try second.existingObject(with: id) as! Entry).rating = 2 }
        try first.performAndWait { try first.save() }
        second.performAndWait {
            second.enqueue(message("refused"))
            #expect(throws: StoreError.self) { try second.save() }
            #expect(second.pendingOutboxMessages.map(\.key) == ["refused"])
        }
        try stack.container.flush()
        #expect(try outboxKeys(stack) == [])
    }
}
