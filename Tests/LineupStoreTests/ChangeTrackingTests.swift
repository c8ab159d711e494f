import Foundation
import LineupStore
import Testing

@Suite struct ChangeTrackingTests {
    @Test(arguments: StoreKind.allCases) func insertedUpdatedDeletedAndHasChanges(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            #expect(!context.hasChanges)
            let kept = context.insertEntry("A", rating: 1)
            let doomed = context.insertEntry("B", rating: 2)
            #expect(context.hasChanges)
            #expect(Set(context.insertedObjects.map(\.objectID)) == [kept.objectID, doomed.objectID])
            try context.save()
            #expect(!context.hasChanges)
            #expect(context.insertedObjects.isEmpty)

            kept.rating = 5
            #expect(kept.isUpdated)
            #expect(kept.changedValues() == ["rating": .integer(5)])
            #expect(kept.committedValues()["rating"] == .integer(1))
            context.delete(doomed)
            #expect(doomed.isDeleted)
            #expect(context.updatedObjects.map(\.objectID) == [kept.objectID])
            #expect(context.deletedObjects.map(\.objectID) == [doomed.objectID])
        }
    }

    @Test(arguments: StoreKind.allCases) func settingTheSameValueIsNoChange(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let entry = context.insertEntry("A", rating: 1)
            try context.save()
            entry.rating = 1
            #expect(!entry.hasChanges)
            #expect(!context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func rollbackRestoresCommittedValuesDropsInsertsAndUndeletes(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let updated = context.insertEntry("A", rating: 1)
            let deleted = context.insertEntry("B", rating: 2)
            try context.save()
            updated.rating = 4
            updated.location = "changed"
            context.delete(deleted)
            let inserted = context.insertEntry("C")
            context.rollback()
            #expect(!context.hasChanges)
            #expect(updated.rating == 1 && updated.location == "A")
            #expect(!deleted.isDeleted && deleted.location == "B")
            #expect(context.registeredObject(for: inserted.objectID) == nil)
            try context.save()
        }
        // Nothing of the rolled-back work reached the parent.
        let rows = try stack.main.performAndWait { try stack.main.fetch(FetchRequest<Entry>(sortedBy: [.ascending(\.location)])) }
        #expect(stack.main.performAndWait { rows.map { $0.location! } } == ["A", "B"])
    }

    @Test(arguments: StoreKind.allCases) func resetForgetsEverything(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        context.performAndWait {
            let entry = context.insertEntry("A")
            context.reset()
            #expect(!context.hasChanges)
            #expect(context.registeredObject(for: entry.objectID) == nil)
            #expect(context.registeredObjects.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func cleanObjectsAreHeldWeaklyAndChangedOnesStrongly(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        weak var weakClean: Entry?
        weak var weakChanged: Entry?
        try context.performAndWait {
            try {
                let clean = context.insertEntry("clean")
                let changed = context.insertEntry("changed")
                try context.save()
                changed.rating = 2
                weakClean = clean
                weakChanged = changed
            }()
            #expect(weakClean == nil, "a clean object nobody uses is released")
            #expect(weakChanged != nil, "an object with changes is kept until saved")
            try context.save()
            #expect(weakChanged == nil)
        }
    }
}
