/// How `AccessTokenPlugin` puts the token in the `Authorization` header.
public enum AuthorizationType: Hashable, Sendable {
    /// `Authorization: Basic <token>`
    case basic
    /// `Authorization: Bearer <token>`
    case bearer
    /// `Authorization: <scheme> <token>`
    case custom(String)

    /// The scheme word, e.g. `Bearer`.
    public var scheme: String {
        switch self {
        case .basic: return "Basic"
        case .bearer: return "Bearer"
        case .custom(let scheme): return scheme
        }
    }
}

/// Adopted by requests that `AccessTokenPlugin` signs (Moya's spelling).
public protocol AccessTokenAuthorizable {
    /// How to send the token; nil sends none for this request.
    var authorizationType: AuthorizationType? { get }
}

extension AccessTokenAuthorizable {
    /// `.bearer`
    public var authorizationType: AuthorizationType? { .bearer }
}
