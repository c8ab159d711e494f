public import LineupJobs

/// The surf journal's job kinds.
public enum SurfJournalJobs: Sendable {
    /// Registers `import-buoy`, `export-csv`, `statistics`, `import-coredata` and
    /// `prune-observations`. `fetch-buoy`, which reaches the network, is SurfJournalFeeds's
    /// (`SurfJournalFeeds.register(in:fetcher:)`), so that this module links no NIO.
    public static func register(in registry: inout JobRegistry) {
        registry.register(ImportBuoyTask.kind, parameters: ImportBuoyTask.Parameters.self) {
            try ImportBuoyTask(request: $0, parameters: $1)
        }
        registry.register(ExportCSVTask.kind, parameters: ExportCSVTask.Parameters.self) {
            try ExportCSVTask(request: $0, parameters: $1)
        }
        registry.register(StatisticsTask.kind, parameters: StatisticsTask.Parameters.self) {
            try StatisticsTask(request: $0, parameters: $1)
        }
        registry.register(ImportCoreDataTask.kind, parameters: ImportCoreDataTask.Parameters.self) {
            try ImportCoreDataTask(request: $0, parameters: $1)
        }
        registry.register(PruneObservationsTask.kind, parameters: PruneObservationsTask.Parameters.self) {
            try PruneObservationsTask(request: $0, parameters: $1)
        }
    }

    /// A registry with the surf journal's kinds.
    public static var registry: JobRegistry {
        var registry = JobRegistry()
        register(in: &registry)
        return registry
    }
}
