import Foundation

/// Signs requests with `Authorization: Bearer <token>` (or `Basic`, or a custom scheme), taking
/// the token from a closure at send time — so a refreshed token is picked up by the next send.
///
/// Only requests that opt in are signed: `Request` types adopting `AccessTokenAuthorizable`
/// (with a non-nil `authorizationType`), and, if `defaultAuthorizationType` is set, every other
/// request (path-based `requestObject` calls included). A nil token sends no header.
///
/// - Note: Thread-safe; the closure runs on the thread that sends and must be thread-safe.
public struct AccessTokenPlugin: HTTPPlugin {
    private let tokenClosure: @Sendable (HTTPRequestInfo) -> String?
    private let defaultAuthorizationType: AuthorizationType?

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - defaultAuthorizationType: How to sign requests that do not adopt
    ///     `AccessTokenAuthorizable`; default nil (they are not signed).
    ///   - tokenClosure: Returns the current token, or nil for none.
    public init(
        defaultAuthorizationType: AuthorizationType? = nil,
        tokenClosure: @escaping @Sendable (HTTPRequestInfo) -> String?
    ) {
        self.tokenClosure = tokenClosure
        self.defaultAuthorizationType = defaultAuthorizationType
    }

    public func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest {
        let type = info.declaresAuthorization ? info.authorizationType : defaultAuthorizationType
        guard let type, let token = tokenClosure(info) else {
            return request
        }
        var request = request
        var fields = request.allHTTPHeaderFields ?? [:]
        HeaderFields.set("\(type.scheme) \(token)", for: "Authorization", in: &fields)
        request.allHTTPHeaderFields = fields
        return request
    }
}
