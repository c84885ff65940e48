import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// How an `OAuthAuthenticator` gets a new credential from the current one.
///
/// - `.tokenEndpoint(url, clientID:clientSecret:scope:clientAuthentication:)`: RFC 6749 §6 — a POST
///   of `grant_type=refresh_token`, `refresh_token`, `client_id`, the optional `scope`, and the
///   client secret as HTTP Basic (default) or in the form. The answer's `access_token`,
///   `token_type`, `expires_in` and `refresh_token` make the new credential (the old refresh token
///   is kept when none comes back). An error answer (`error`, `error_description`) becomes the
///   `.refreshFailed` message. The call goes through the authenticator's client (its transport and
///   plugins — the logger redacts the form — and its retry policy, under which a POST that was
///   sent is not repeated), bypassing `suspend()` and authentication.
/// - `.custom { credential in Single<OAuthCredential> }`: any other flow.
///
/// A failure is a **rejection** (the credential is cleared and `didLoseAuthentication` emits) when
/// the server answered 4xx other than 408/429, or the answer could not be used; it is **transient**
/// (the credential is kept: never sign out because the network is down) when the connection
/// failed, timed out, or the server answered 408, 429 or 5xx. A custom refresher's error counts as
/// transient when `isTransient` is true for it.
///
/// - Note: A value type; `Sendable`.
public struct TokenRefresher: Sendable {
    /// How the client authenticates itself to the token endpoint (RFC 6749 §2.3.1).
    public enum ClientAuthentication: Sendable, Hashable {
        /// `Authorization: Basic base64(client_id:client_secret)`, each form-encoded first.
        case basic
        /// `client_id` and `client_secret` in the form body.
        case form
    }

    /// Starts a refresh from the credential (through the client, for the token endpoint) and calls
    /// back once with the new credential or the failure, unless disposed first.
    typealias Refresh = @Sendable (
        OAuthCredential, HTTPClient?, @escaping @Sendable (Result<OAuthCredential, Error>) -> Void
    ) -> Disposable

    let refresh: Refresh

    /// Refreshes at an OAuth 2.0 token endpoint; see the type's documentation.
    ///
    /// - Parameters:
    ///   - url: The token endpoint.
    ///   - clientID: The client id.
    ///   - clientSecret: The client secret, if the client has one.
    ///   - scope: The scope to ask for; nil asks for the original one.
    ///   - clientAuthentication: Where the secret goes; default `.basic`.
    public static func tokenEndpoint(
        _ url: URL,
        clientID: String,
        clientSecret: String? = nil,
        scope: String? = nil,
        clientAuthentication: ClientAuthentication = .basic
    ) -> TokenRefresher {
        TokenRefresher { credential, client, completion in
            guard let client else {
                completion(.failure(HTTPClientError(.refreshFailed, message: "the authenticator is not attached to a client", phase: .notSent)))
                return Disposables.create()
            }
            guard let refreshToken = credential.refreshToken, !refreshToken.isEmpty else {
                completion(.failure(HTTPClientError(.refreshFailed, message: "the credential has no refresh token", phase: .notSent)))
                return Disposables.create()
            }
            let request = TokenRefreshRequest(
                endpoint: url, refreshToken: refreshToken, clientID: clientID, clientSecret: clientSecret,
                scope: scope, clientAuthentication: clientAuthentication, previous: credential, now: { Date() }
            )
            // A callback, not `client.rx`: the refresh is part of the call path, where nothing
            // subscribes. A refresh given up (a new credential arrived) reports nothing.
            let abandoned = LockedState<Bool>.make(false)
            let handle = client.request(request) { result in
                guard !abandoned.withLock({ $0 }) else { return }
                completion(result.mapError { TokenRefreshRequest.refreshError(from: $0) })
            }
            return Disposables.create {
                abandoned.withLock { $0 = true }
                handle.cancel()
            }
        }
    }

    /// Refreshes with your own flow: `refresh` gets the current credential and returns the next.
    public static func custom(_ refresh: @escaping @Sendable (OAuthCredential) -> Single<OAuthCredential>) -> TokenRefresher {
        TokenRefresher { credential, _, completion in
            // Your flow is reactive: this is the edge where it is subscribed.
            refresh(credential).subscribe(
                onSuccess: { completion(.success($0)) },
                onFailure: { completion(.failure($0)) }
            )
        }
    }
}

/// The RFC 6749 §6 refresh request.
struct TokenRefreshRequest: Request {
    typealias Response = OAuthCredential

    let endpoint: URL
    let refreshToken: String
    let clientID: String
    let clientSecret: String?
    let scope: String?
    let clientAuthentication: TokenRefresher.ClientAuthentication
    let previous: OAuthCredential
    let now: @Sendable () -> Date

    var baseURL: URL? { endpoint }
    var path: String { "" }
    var method: HTTPMethod { .post }
    var bypassesSuspension: Bool { true }
    var requiresAuthentication: Bool { false }

    var headers: [String: String] {
        guard clientAuthentication == .basic, let clientSecret else { return ["Accept": "application/json"] }
        let pair = PercentEncoding.encodeFormComponent(clientID) + ":" + PercentEncoding.encodeFormComponent(clientSecret)
        return ["Accept": "application/json", "Authorization": "Basic " + Data(pair.utf8).base64EncodedString()]
    }

    var body: any RequestBody {
        var form: [String: Any?] = ["grant_type": "refresh_token", "refresh_token": refreshToken, "scope": scope]
        if clientAuthentication == .form || clientSecret == nil {
            form["client_id"] = clientID
        }
        if clientAuthentication == .form {
            form["client_secret"] = clientSecret
        }
        return FormURLEncodedBody(form)
    }

    /// The token response (never through the client's envelope).
    func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> OAuthCredential {
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: response.body),
              case .object(let fields) = object else {
            throw HTTPClientError(.refreshFailed, message: "the token endpoint's answer is not a JSON object",
                                  statusCode: response.statusCode, body: response.body, url: response.url)
        }
        guard case .string(let accessToken)? = fields["access_token"], !accessToken.isEmpty else {
            throw HTTPClientError(.refreshFailed, message: "the token endpoint's answer has no access_token",
                                  statusCode: response.statusCode, body: response.body, url: response.url)
        }
        var credential = OAuthCredential(accessToken: accessToken, refreshToken: previous.refreshToken)
        if case .string(let rotated)? = fields["refresh_token"], !rotated.isEmpty {
            credential.refreshToken = rotated
        }
        if case .string(let type)? = fields["token_type"], !type.isEmpty {
            credential.tokenType = type
        }
        if let seconds = Self.seconds(fields["expires_in"]) {
            credential.expiresAt = now().addingTimeInterval(seconds)
        }
        return credential
    }

    /// `expires_in` as a number or a numeric string, bounded; nil if absent or nonsense.
    private static func seconds(_ value: JSONValue?) -> TimeInterval? {
        let number: Double?
        switch value {
        case .int(let value)?: number = Double(value)
        case .double(let value)?: number = value
        case .string(let text)?: number = Double(text)
        default: number = nil
        }
        guard let number, number.isFinite, number >= 0 else { return nil }
        return min(number, TimeoutBounds.maximum)
    }

    /// The refresh's failure for the authenticator: `.refreshFailed` for a rejection (carrying the
    /// server's `error` and `error_description`), the error as it is when it may pass.
    static func refreshError(from error: Error) -> HTTPClientError {
        guard let error = error as? HTTPClientError else {
            return HTTPClientError(.refreshFailed, message: "the refresh failed: \(HTTPClientError.describe(error))", underlying: error)
        }
        if error.code == .refreshFailed || !error.isTransientFailure {
            var message = "the token endpoint refused the refresh"
            if let body = error.body, let parsed = try? JSONDecoder().decode(JSONValue.self, from: body),
               case .object(let fields) = parsed, case .string(let code)? = fields["error"] {
                message += ": \(code)"
                if case .string(let description)? = fields["error_description"] {
                    message += " (\(description.prefix(200)))"
                }
            } else if let own = error.message, error.code == .refreshFailed {
                message = own
            }
            return HTTPClientError(
                .refreshFailed, message: message, statusCode: error.statusCode, body: error.body, url: error.url,
                underlying: error, headers: error.headers, phase: error.phase
            )
        }
        return error
    }
}
