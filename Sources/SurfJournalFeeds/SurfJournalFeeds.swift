public import LineupJobs

/// The surf journal's job kinds that reach the network: `fetch-buoy`. Apart from
/// `SurfJournalJobs`, so that an app that does not fetch links no NIO.
public enum SurfJournalFeeds: Sendable {
    /// Registers `fetch-buoy`, whose jobs fetch through `fetcher` (one per daemon).
    public static func register(in registry: inout JobRegistry, fetcher: BuoyFeedFetcher) {
        registry.register(FetchBuoyTask.kind, parameters: FetchBuoyTask.Parameters.self) {
            try FetchBuoyTask(request: $0, parameters: $1, fetcher: fetcher)
        }
    }
}
