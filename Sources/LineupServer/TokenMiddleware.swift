import Hummingbird

/// Refuses a request that does not carry the token of `--http-token-file` (``ActionToken``),
/// before any handler of its group runs: the dashboard's actions, and its reads when the
/// endpoint is reachable beyond loopback. A handler behind it never checks the token itself.
///
/// - 403 when lineupd was started without a token file: there is no token to give.
/// - 401 with a `WWW-Authenticate` challenge when none is given, or not as `Bearer`.
/// - 403 when the one given is wrong.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: ActionToken?
    /// Whether `?token=` may stand for the header. Reads allow it, because an `EventSource`
    /// cannot set headers; actions do not, so that a URL that reaches a log or a browser's
    /// history cannot change anything.
    let acceptsQueryToken: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try authorize(request)
        return try await next(request, context)
    }

    private func authorize(_ request: Request) throws {
        guard let token else {
            throw HTTPError(.forbidden, message: "actions are off: lineupd was started without --http-token-file")
        }
        var presented: Substring?
        if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer ") else {
                throw HTTPError(.unauthorized, headers: Self.challenge, message: "give the token as Authorization: Bearer TOKEN")
            }
            presented = header.dropFirst("Bearer ".count)
        } else if acceptsQueryToken, let query = request.uri.queryParameters.get("token") {
            presented = Substring(query)
        }
        guard let presented else {
            throw HTTPError(.unauthorized, headers: Self.challenge, message: "this needs the token of --http-token-file")
        }
        guard token.matches(presented) else {
            throw HTTPError(.forbidden, message: "wrong token")
        }
    }

    private static var challenge: HTTPFields {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Bearer realm="lineupd""#
        return headers
    }
}
