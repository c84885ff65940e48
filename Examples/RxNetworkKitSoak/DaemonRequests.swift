import Foundation
import RxNetworkKit

// What the daemon soak's client asks its API, as request types.

/// An item; its version changes every `DaemonSchedule.itemVersionPeriod` seconds.
struct SoakItem: Decodable, Sendable {
    let id: Int
    let version: Int
}

/// `GET /items/{id}`: cacheable (`max-age`, `ETag`), so most calls are answered by the cache or a 304.
struct GetItem: Request {
    typealias Response = SoakItem
    let id: Int
    var path: String { "/items/\(id)" }
}

/// One answer of the feed: which exchange of which API incarnation served it.
struct SoakFeed: Decodable, Sendable {
    let served: String
}

/// `GET /feed`: never stored (`no-store`); identical calls in flight at once share one exchange.
struct GetFeed: Request {
    typealias Response = SoakFeed
    var path: String { "/feed" }
}

/// What the API says it did with an order.
struct OrderReceipt: Decodable, Sendable {
    let order: String
    let key: String
    let replayed: Bool
}

/// `POST /orders`: retried safely with one `Idempotency-Key` per call.
struct CreateOrder: Request {
    typealias Response = OrderReceipt
    let order: String
    var path: String { "/orders" }
    var method: HTTPMethod { .post }
    var body: any RequestBody { .jsonObject(["order": order]) }
    var idempotency: Idempotency { .keyed }
}

/// `GET /stats` of the API or of the token server (unsigned: not the daemon's business).
struct GetStats<Stats: Decodable>: Request {
    typealias Response = Stats
    let baseURL: URL?
    var path: String { "/stats" }
    var requiresAuthentication: Bool { false }
}

/// A request to any path of any host, once and unsigned, whatever its answer (the set-up's).
struct Ping: RetryableRequest {
    typealias Response = Data
    let baseURL: URL?
    var path: String { "/ping" }
    var requiresAuthentication: Bool { false }
    var retryPolicy: RetryPolicy { .none }
}

/// The sign-in (`grant_type=password`) that gives the daemon its first credential.
struct SignIn: Request {
    typealias Response = OAuthCredential
    let clientSecret: String
    let password: String
    var path: String { "/oauth/token" }
    var method: HTTPMethod { .post }
    var headers: [String: String] {
        ["Authorization": "Basic " + Data("\(OAuthServer.clientID):\(clientSecret)".utf8).base64EncodedString()]
    }
    var body: any RequestBody { .form(["grant_type": "password", "username": "daemon", "password": password]) }

    func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> OAuthCredential {
        struct Token: Decodable {
            let access_token: String
            let refresh_token: String
            let expires_in: Double
        }
        let token = try JSONDecoder().decode(Token.self, from: response.body)
        return OAuthCredential(accessToken: token.access_token, refreshToken: token.refresh_token,
                               expiresAt: Date().addingTimeInterval(token.expires_in))
    }
}
