package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libpq reads from outside a connection string: the `PG*` variables, the home directory
/// (`~/.pgpass`, `~/.postgresql/root.crt`), the operating system's user name (the default user)
/// and files. The parser takes it as a value, so that tests give it their own and nothing in
/// ``PostgresConnectionSettings`` reads the process's environment itself; ``process`` is the real one.
package struct PostgresConnectionEnvironment: Sendable {
    /// What `stat` says of a file: enough for libpq's checks of `.pgpass` and of a client key.
    package struct FileStatus: Sendable, Equatable {
        package var isRegularFile: Bool
        /// The permission bits (`0o600`).
        package var permissions: UInt16
        package var ownerID: UInt32

        package init(isRegularFile: Bool = true, permissions: UInt16, ownerID: UInt32 = 1000) {
            self.isRegularFile = isRegularFile
            self.permissions = permissions
            self.ownerID = ownerID
        }
    }

    /// `PGHOST`, `PGPORT`, … (only the `PG` ones are read).
    package var variables: [String: String]
    /// libpq's `~`: `$HOME`, else the user's entry in the password database.
    package var homeDirectory: String?
    /// The user libpq connects as when none is given: the effective user's name.
    package var userName: String?
    /// The file's status, nil when it does not exist (or cannot be looked at).
    package var fileStatus: @Sendable (String) -> FileStatus?
    /// The file's contents, nil when it cannot be read.
    package var readFile: @Sendable (String) -> Data?

    package init(
        variables: [String: String] = [:], homeDirectory: String? = nil, userName: String? = nil,
        fileStatus: @escaping @Sendable (String) -> FileStatus? = { _ in nil },
        readFile: @escaping @Sendable (String) -> Data? = { _ in nil }
    ) {
        self.variables = variables
        self.homeDirectory = homeDirectory
        self.userName = userName
        self.fileStatus = fileStatus
        self.readFile = readFile
    }

    /// The process's own: its environment variables, home directory and user, and the file system.
    package static var process: PostgresConnectionEnvironment {
        let variables = ProcessInfo.processInfo.environment
        let account = effectiveUserAccount()
        return PostgresConnectionEnvironment(
            variables: variables.filter { $0.key.hasPrefix("PG") },
            homeDirectory: variables["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? account?.home,
            userName: account?.name ?? variables["USER"],
            fileStatus: { path in
                var information = stat()
                guard stat(path, &information) == 0 else { return nil }
                return FileStatus(
                    isRegularFile: information.st_mode & S_IFMT == S_IFREG,
                    permissions: UInt16(information.st_mode & 0o7777), ownerID: UInt32(information.st_uid))
            },
            readFile: { path in FileManager.default.contents(atPath: path) })
    }

    /// The effective user's name and home directory, from the password database (`getpwuid_r`:
    /// `getpwuid`'s one static entry would be shared with any other thread asking).
    private static func effectiveUserAccount() -> (name: String, home: String)? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = buffer.withUnsafeMutableBufferPointer { buffer in
            getpwuid_r(geteuid(), &entry, buffer.baseAddress!, buffer.count, &found)
        }
        guard status == 0, found != nil, let name = entry.pw_name, let home = entry.pw_dir else { return nil }
        return (String(cString: name), String(cString: home))
    }
}
