import LineupStore
import Logging
import NIOCore
import PostgresNIO

/// `target_session_attrs`: asking a server that accepted the connection what kind it is, as libpq
/// asks servers that do not report it at startup.
extension PostgresConnector {
    /// The server's refusal by kind; the connection is closed and the next host tried.
    struct WrongKindOfServer: Error {
        var reason: String
    }

    /// `connection` if its server is of the kind `wanted`; else it is closed and the future fails
    /// with ``WrongKindOfServer`` (libpq's words: "session is read-only").
    func check(
        _ connection: PostgresConnection, is wanted: PostgresConnectionSettings.TargetSessionAttributes, logger: Logger
    ) -> EventLoopFuture<PostgresConnection> {
        let question: (sql: String, refusal: @Sendable (String) -> String?)
        switch wanted {
        case .any, .preferStandby:
            // prefer-standby is two passes over the hosts, each of them standby, then any.
            return connection.eventLoop.makeSucceededFuture(connection)
        case .readWrite:
            question = ("SHOW transaction_read_only", { $0 == "on" ? "session is read-only" : nil })
        case .readOnly:
            question = ("SHOW transaction_read_only", { $0 == "off" ? "session is not read-only" : nil })
        case .primary:
            question = ("SELECT pg_is_in_recovery()::text", { $0 == "true" ? "server is in hot standby mode" : nil })
        case .standby:
            question = ("SELECT pg_is_in_recovery()::text", { $0 == "false" ? "server is not in hot standby mode" : nil })
        }
        return connection.query(PostgresQuery(unsafeSQL: question.sql), logger: logger)
            .map { result -> String? in
                let answer = result.rows.first.flatMap { row in Array(row).first.flatMap { try? $0.decode(String.self) } }
                guard let answer else { return "cannot tell whether the server is \(wanted.rawValue): no answer to \(question.sql)" }
                return question.refusal(answer)
            }
            .recover { error in
                "cannot tell whether the server is \(wanted.rawValue): \(PostgresSession.describe(error))"
            }
            .flatMap { refusal in
                guard let refusal else { return connection.eventLoop.makeSucceededFuture(connection) }
                return connection.close().recover { _ in }.flatMapThrowing { _ -> PostgresConnection in
                    // Held until closed: postgres-nio asserts that a connection it frees is closed,
                    // and nothing else holds this one.
                    withExtendedLifetime(connection) {}
                    throw WrongKindOfServer(reason: refusal)
                }
            }
    }
}
