import Foundation
import LineupStore
import Testing

@Suite struct MemoryTests {
    /// A long import that saves and resets per chunk keeps nothing registered anywhere: what it
    /// inserted is released as soon as each chunk is saved and flushed.
    @Test func chunkedImportKeepsNoObjectsAlive() throws {
        let stack = try TemporaryStack()
        weak var lastInserted: Entry?
        for chunk in 0..<20 {
            let context = stack.container.newTaskContext(name: "chunk-\(chunk)")
            try context.performAndWait {
                for row in 0..<500 {
                    let entry = Entry(context: context)
                    entry.rating = row
                    lastInserted = entry
                }
                try context.save()
                context.reset()
                #expect(context.registeredObjects.isEmpty)
            }
            try stack.container.flush()
            #expect(lastInserted == nil)
            #expect(stack.main.performAndWait { stack.main.registeredObjects.isEmpty && !stack.main.hasChanges })
            #expect(stack.container.writerContext.performAndWait { stack.container.writerContext.registeredObjects.isEmpty })
        }
        #expect(try stack.rowsOnDisk("Entry") == 10_000)
    }
}
