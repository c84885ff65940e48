import Foundation

/// An OAuth 2.0 credential: the access token sent with requests, the refresh token that renews it,
/// and when it expires.
///
/// Its description never shows a token (`OAuthCredential(Bearer, access: <redacted>, refresh:
/// <redacted>, expires …)`), so printing or logging one is safe.
///
/// - Note: A value type; `Sendable`, `Codable` (the shape `FileCredentialStore` writes), `Equatable`.
public struct OAuthCredential: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access token.
    public var accessToken: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// When the access token expires, if known.
    public var expiresAt: Date?
    /// The token type, the scheme of the `Authorization` header: `Bearer` unless the server says
    /// otherwise.
    public var tokenType: String

    /// Creates a credential.
    ///
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresAt: When the access token expires, if known.
    ///   - tokenType: The `Authorization` scheme; default `Bearer`.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.tokenType = tokenType
    }

    /// Whether the access token expires within `skew` seconds of `now` (false when the expiry is
    /// unknown).
    public func expires(within skew: TimeInterval, of now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= skew
    }

    /// The `Authorization` header value: `<tokenType> <accessToken>` (`Bearer` for the type
    /// `bearer`, which RFC 6750 spells case-insensitively).
    public var authorizationValue: String {
        let scheme = tokenType.lowercased() == "bearer" || tokenType.isEmpty ? "Bearer" : tokenType
        return "\(scheme) \(accessToken)"
    }

    /// The token type and expiry; the tokens are `<redacted>`.
    public var description: String {
        let expiry = expiresAt.map { "expires \(ISO8601DateFormatter().string(from: $0))" } ?? "no expiry"
        return "OAuthCredential(\(tokenType), access: <redacted>, refresh: \(refreshToken == nil ? "none" : "<redacted>"), \(expiry))"
    }

    /// The same as `description`: the tokens are `<redacted>` in a debugger too.
    public var debugDescription: String {
        description
    }
}
