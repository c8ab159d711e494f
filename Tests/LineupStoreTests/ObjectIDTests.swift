import Foundation
import LineupStore
import Testing

@Suite struct ObjectIDTests {
    @Test(arguments: StoreKind.allCases) func permanentAtInsertAndUniqueAcrossContexts(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let first = stack.container.newTaskContext(name: "a")
        let second = stack.container.newTaskContext(name: "b")
        let ids = first.performAndWait { (0..<3).map { _ in first.insertEntry("x").objectID } }
            + second.performAndWait { (0..<3).map { _ in second.insertEntry("y").objectID } }
        #expect(Set(ids).count == 6)
        #expect(ids.allSatisfy { !$0.isTemporaryID && $0.primaryKey > 0 })
        #expect(ids.allSatisfy { $0.storeIdentifier == stack.container.storeIdentifier })
    }

    @Test(arguments: StoreKind.allCases) func uriRoundTripAndCodable(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let id = stack.main.performAndWait { stack.main.insertEntry("x").objectID }
        let uri = id.uriRepresentation
        #expect(uri.absoluteString == "x-lineup://\(stack.container.storeIdentifier.uuidString)/Entry/p\(id.primaryKey)")
        #expect(ObjectID(uriRepresentation: uri) == id)
        #expect(ObjectID(uriRepresentation: URL(string: "https://example.com/Entry/p1")!) == nil)
        #expect(ObjectID(uriRepresentation: URL(string: "x-lineup://\(UUID().uuidString)/Entry/q1")!) == nil)
        let decoded = try JSONDecoder().decode(ObjectID.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
    }

    @Test(arguments: StoreKind.allCases) func sameIDInAnotherContextFindsTheObjectBeforeAnyDiskSave(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let child = stack.container.newTaskContext(name: "child")
        let id = try child.performAndWait {
            let entry = child.insertEntry("Steamer Lane", rating: 4)
            try child.save()
            return entry.objectID
        }
        let sibling = stack.container.newTaskContext(name: "sibling")
        let location = try sibling.performAndWait { try (sibling.existingObject(with: id) as! Entry).location }
        #expect(location == "Steamer Lane")
    }
}
