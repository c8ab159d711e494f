package import Foundation

/// What every store records about itself in its `lineup_metadata` table (format, version,
/// identity, the schema it was written with), and the checks that refuse a database Lineup did
/// not write or that a newer Lineup or model wrote, before anything changes it.
package enum StoreMetadata {
    package static let format = "lineup-store"

    /// The store's identity and schema from its `lineup_metadata`, refusing a store that another
    /// program or a newer Lineup wrote.
    package static func identity(in metadata: [String: String], location path: String) throws -> (UUID, [EntitySchema]) {
        guard metadata["format"] == format, let version = metadata["format_version"].flatMap(Int.init),
            let identifier = metadata["store_uuid"].flatMap(UUID.init(uuidString:)),
            let schemaJSON = metadata["schema"]
        else {
            throw StoreError(.storeNotOurs, "\(path) has a lineup_metadata table that Lineup did not write")
        }
        // `format_version` is the version of the store's own tables (StoreSchema).
        try StoreSchema.checkKnown(version, location: path)
        do {
            return (identifier, try JSONDecoder().decode([EntitySchema].self, from: Data(schemaJSON.utf8)))
        } catch {
            throw StoreError(.storeCorrupt, "\(path): unreadable schema in lineup_metadata: \(error)")
        }
    }

    /// Refuses a stored schema that the model cannot take in place: entities or properties the
    /// model lacks (a newer model wrote the store), changed types, new required properties.
    package static func checkCompatibility(of stored: [EntitySchema], with model: ManagedObjectModel, location path: String) throws {
        let storedByName = Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0) })
        for old in stored {
            guard let entity = model.entity(named: old.name) else {
                throw StoreError(.storeNewerThanModel, "\(path) holds entity \(old.name), which this model lacks")
            }
            for property in old.properties {
                guard let current = entity.properties.first(where: { $0.name == property.name }) else {
                    throw StoreError(
                        .storeNewerThanModel, "\(path) holds \(old.name).\(property.name), which this model lacks")
                }
                guard current.type == property.type else {
                    throw StoreError(
                        .migrationUnsupported,
                        "\(old.name).\(property.name) changed from \(property.type) to \(current.type)")
                }
            }
        }
        for entity in model.entities {
            guard let old = storedByName[entity.name] else { continue }
            for property in entity.properties where !old.properties.contains(where: { $0.name == property.name }) {
                guard property.isOptional else {
                    throw StoreError(
                        .migrationUnsupported,
                        "\(entity.name).\(property.name) is new and not optional: existing rows would have no value")
                }
            }
        }
    }

    package static func encode(_ schema: [EntitySchema]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(schema), as: UTF8.self)
    }

    /// How many groups of rows holding one key the refusal of a new uniqueness constraint lists.
    package static let duplicateGroupsShown = 5

    /// The refusal of a new uniqueness constraint that existing rows break. `groups` lists the
    /// primary keys of each key's rows (up to one more than are shown), `total` counts the keys.
    package static func duplicateKeys(
        of constraint: [String], in entityName: String, groups: [String], total: Int, location: String
    ) -> StoreError {
        let listed = groups.prefix(duplicateGroupsShown).map { "pk \($0)" }.joined(separator: "; ")
            + (total > duplicateGroupsShown ? "; ..." : "")
        return StoreError(
            .migrationUnsupported,
            "\(location): cannot add the uniqueness constraint \(entityName)(\(constraint.joined(separator: ", "))): "
                + "\(total) key(s) are held by more than one row (\(listed)). The store was left as it was: "
                + "remove or merge those rows with the previous version, then open it again")
    }

    /// One change that opening a store with a newer model makes to its schema.
    package enum MigrationStep {
        case createTable(EntitySchema)
        case addColumn(entity: String, PropertyDescription)
        /// Refuse, naming the rows, when existing rows break the new constraint.
        case checkNoDuplicates(entity: String, constraint: [String])
        /// Create the entity's missing indexes (uniqueness constraints and plain indexes).
        case createIndexes(EntitySchema)
    }

    /// What opening a store written with `stored` must change for `model`, in order; empty when
    /// nothing changed. Call ``checkCompatibility(of:with:location:)`` first: only additions are
    /// left to make.
    package static func migrationSteps(from stored: [EntitySchema], to model: ManagedObjectModel) -> [MigrationStep] {
        var steps: [MigrationStep] = []
        let storedByName = Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0) })
        for entity in model.entities {
            guard let old = storedByName[entity.name] else {
                steps.append(.createTable(entity.schema))
                continue
            }
            for property in entity.properties where !old.properties.contains(where: { $0.name == property.name }) {
                steps.append(.addColumn(entity: entity.name, property))
            }
            if old.uniquenessConstraints != entity.uniquenessConstraints || old.indexes != entity.indexes {
                for constraint in entity.uniquenessConstraints where !old.uniquenessConstraints.contains(constraint) {
                    steps.append(.checkNoDuplicates(entity: entity.name, constraint: constraint))
                }
                steps.append(.createIndexes(entity.schema))
            }
        }
        return steps
    }
}
