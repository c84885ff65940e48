import Foundation
import Synchronization
import RxTesting

/// `serve-oauth` (the token key, the client secret and the password in the environment): the
/// daemon soak's OAuth 2.0 token endpoint, run as a child process.
///
/// - `POST /oauth/token` with the client's HTTP Basic credentials: `grant_type=password` signs in;
///   `grant_type=refresh_token` rotates: the refresh token presented is spent, a new one comes
///   back, and a spent or unknown one gets `400 invalid_grant`. Access tokens live
///   `accessTokenLifetime` seconds (`expires_in`). Refreshes answer 150 ms late, so that requests
///   pile up behind a refresh in flight.
/// - `GET /stats`: every access token issued (when, and when it was refreshed), and the refusals.
enum OAuthServer {
    static let accessTokenLifetime: TimeInterval = 60
    static let clientID = "soak-daemon"
    static let secretVariable = "RXSOAK_CLIENT_SECRET"
    static let passwordVariable = "RXSOAK_PASSWORD"

    /// What `/stats` tells.
    struct Stats: Codable, Sendable {
        struct Token: Codable, Sendable {
            /// Epoch seconds.
            var issued: Double
            var refreshed: Double?
        }
        var tokens: [Token] = []
        var invalidGrants = 0
        var badClients = 0
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var stats = Stats()
        /// Live refresh tokens, with the index of the access token issued with each.
        var refreshTokens: [String: Int] = [:]
        var nonce: UInt64 = 0
    }

    static func serve(arguments: [String]) -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let key = SoakTokenKey(), let secret = environment[secretVariable], let password = environment[passwordVariable] else {
            print("error: serve-oauth needs the token key, the client secret and the password in its environment")
            exit(1)
        }
        let shared = Shared()
        let server = LoopbackHTTPServer(requestLogLimit: 10)
        server.route(.post, "/oauth/token") { request in
            let basic = "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString()
            guard request.header("Authorization") == basic else {
                shared.state.withLock { $0.stats.badClients += 1 }
                return .json(#"{"error":"invalid_client"}"#, status: 401)
            }
            let form = Self.form(request.bodyString ?? "")
            let now = Date()
            let issued = shared.state.withLock { state -> (access: String, refresh: String)? in
                switch form["grant_type"] {
                case "password" where form["username"] == "daemon" && form["password"] == password:
                    break
                case "refresh_token":
                    guard let presented = form["refresh_token"], let index = state.refreshTokens.removeValue(forKey: presented) else {
                        state.stats.invalidGrants += 1
                        return nil
                    }
                    state.stats.tokens[index].refreshed = now.timeIntervalSince1970
                default:
                    state.stats.invalidGrants += 1
                    return nil
                }
                state.nonce += 1
                let access = key.mint(expiresAt: now.addingTimeInterval(accessTokenLifetime), nonce: state.nonce)
                let refresh = UUID().uuidString
                state.stats.tokens.append(Stats.Token(issued: now.timeIntervalSince1970))
                state.refreshTokens[refresh] = state.stats.tokens.count - 1
                return (access, refresh)
            }
            guard let issued else { return .json(#"{"error":"invalid_grant"}"#, status: 400) }
            let body = #"{"access_token":"\#(issued.access)","token_type":"Bearer","expires_in":\#(Int(accessTokenLifetime)),"refresh_token":"\#(issued.refresh)"}"#
            return LoopbackHTTPResponse.json(body).withHeader("Cache-Control", "no-store")
                .delayed(by: form["grant_type"] == "refresh_token" ? 0.15 : 0)
        }
        server.route(.get, "/stats") { _ in try .json(encoding: shared.state.withLock { $0.stats }) }
        do {
            try server.start()
        } catch {
            print("error: \(error)")
            exit(1)
        }
        print(server.port)
        fflush(nil)
        while true { Thread.sleep(forTimeInterval: 3600) }
    }

    /// An `application/x-www-form-urlencoded` body as a dictionary.
    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
