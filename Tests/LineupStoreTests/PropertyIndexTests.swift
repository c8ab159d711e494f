@testable import LineupStore
import Foundation
import Logging
import Testing

/// An entity whose names are too long for a string's inline storage: their literals are found by
/// pointer, their copies built at run time by comparison.
private final class LongNamedEntity: ManagedObject {
    @Attribute("observationTimestampUTC") var observationTimestamp: String?
    @Attribute("significantWaveHeightMeters") var significantWaveHeight: Double?
    @Attribute("short") var short: Int?
}

@Suite("Finding a property by name")
struct PropertyIndexTests {
    @Test("the entity's own name strings and equal strings built at run time find the same property", arguments: [
        Entry.entity, Reading.entity, LongNamedEntity.entity,
    ])
    func namesFindTheirProperty(entity: EntityDescription) {
        for (index, property) in entity.properties.enumerated() {
            #expect(entity.propertyIndex(property.name) == index)
            // The same characters in a string of its own: other bits, so found by comparing.
            let rebuilt = String(decoding: Array(property.name.utf8), as: UTF8.self)
            #expect(entity.propertyIndex(rebuilt) == index, "\(entity.name).\(property.name)")
        }
    }

    @Test("a long name built at run time has other bits than the entity's, and is still found")
    func longNameBuiltAtRunTime() {
        let entity = LongNamedEntity.entity
        let rebuilt = String(decoding: Array("significantWaveHeightMeters".utf8), as: UTF8.self)
        let index = entity.properties.firstIndex { $0.name == "significantWaveHeightMeters" }
        #expect(!entity.propertyNameBits.contains(StringBits(rebuilt)))
        #expect(entity.propertyIndex(rebuilt) == index)
    }

    @Test("values written through the wrappers land in their own columns, and read back through them")
    func wrappersWriteAndReadTheirOwnProperty() throws {
        let place = try TemporaryStoreURL(.sqlite)
        defer { extendLifetime(place) }
        let container = try openStack(at: place.url, model: ManagedObjectModel(LongNamedEntity.self))
        defer { try? container.close() }
        let writer = container.newTaskContext(name: "writer")
        let id = try writer.performAndWait {
            let object = LongNamedEntity(context: writer)
            object.observationTimestamp = "2026-11-26T04:00:00Z"
            object.significantWaveHeight = 2.5
            object.short = 7
            try writer.save()
            return object.objectID
        }
        try container.flush()

        let reader = container.newTaskContext(name: "reader")
        let values = try reader.performAndWait {
            let row = try reader.existingObject(with: id).committedValues()
            let object = try #require(reader.object(with: id) as? LongNamedEntity)
            return (row, object.observationTimestamp, object.significantWaveHeight, object.short)
        }
        #expect(values.0["observationTimestampUTC"] == .text("2026-11-26T04:00:00Z"))
        #expect(values.0["significantWaveHeightMeters"] == .real(2.5))
        #expect(values.0["short"] == .integer(7))
        #expect(values.1 == "2026-11-26T04:00:00Z")
        #expect(values.2 == 2.5)
        #expect(values.3 == 7)
    }
}
