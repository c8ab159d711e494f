import Dispatch
import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging

/// SIGHUP: re-reading the configuration, and applying what can change without a restart.
extension JobDaemon {
    /// Re-reads the configuration (the ``Hooks/reloadConfiguration`` hook, or the
    /// configuration file) and applies its reloadable settings, as SIGHUP does.
    ///
    /// - Returns: the configuration now in effect.
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration``; the settings in
    ///   effect stay as they were.
    @discardableResult
    public func reload() throws(DaemonError) -> DaemonConfiguration {
        let current = configuration
        let fresh: DaemonConfiguration
        if let hook = hooks.reloadConfiguration {
            do {
                fresh = try hook()
            } catch let error as DaemonError {
                throw error
            } catch {
                throw DaemonError(
                    .invalidConfiguration, path: current.configurationFile?.path, "cannot reload the configuration",
                    underlying: error)
            }
        } else if let file = current.configurationFile {
            fresh = try DaemonConfigurationFile.load(file, over: current)
        } else {
            state.withLock { $0.logger }.info("reload: no configuration file to re-read")
            return current
        }
        return try reload(with: fresh)
    }

    /// Applies the settings of `fresh` that a reload applies (``DaemonSetting/Reload/applies``);
    /// those that need a restart keep their values in effect, and a warning names them.
    ///
    /// - Returns: the configuration now in effect.
    @discardableResult
    public func reload(with fresh: DaemonConfiguration) throws(DaemonError) -> DaemonConfiguration {
        let current = configuration
        let merged = current.reloading(from: fresh)
        try merged.validate()
        var requested = fresh
        requested.configurationFile = current.configurationFile
        let needsRestart = current.settingsNeedingRestart(toBecome: requested)
        let (logger, runner) = state.withLock { state in
            state.configuration = merged
            state.logger.logLevel = merged.logLevel
            return (state.logger, state.runner)
        }
        runner?.apply(RunnerSettings(merged, logger: logger))
        if !needsRestart.isEmpty {
            logger.warning(
                "reload: these settings need a restart; kept as they were",
                metadata: ["settings": "\(needsRestart.joined(separator: ","))"])
        }
        logger.info("configuration reloaded", metadata: ["configuration": "\(merged.summary)"])
        broadcaster.emit(.reloaded(merged))
        return merged
    }
}
