import Foundation
import RxCore

/// Signs requests and renews what it signs them with: the seam between `HTTPClient` and a
/// credential scheme (`OAuthAuthenticator` is the one this package provides).
///
/// The client asks for a ticket before each send of a request whose `requiresAuthentication` is
/// true, puts the ticket's header on it, and, when the answer is unauthorized, reports the ticket
/// back and replays the request once with the ticket it is given. All the waiting, refreshing and
/// versioning lives in the authenticator:
///
/// - `ticket(_:)` answers at once with the current credential, or later — after a refresh already
///   running, or one it starts because the credential is about to expire. No request is sent with
///   a credential the authenticator is replacing.
/// - `unauthorized(with:_:)`: a request signed with `ticket` was refused. If a newer credential
///   exists already, answer with it (no refresh: the request was merely stale); otherwise refresh
///   (once, however many requests report the same ticket) and answer with the new one, or fail.
///
/// - Note: Implementations are thread-safe; completions may run on any thread, at most once, and
///   never after the returned disposable was disposed.
public protocol Authenticator: AnyObject, Sendable {
    /// The statuses that mean "not authorized": the request is replayed once with a fresh ticket.
    var unauthorizedStatusCodes: Set<Int> { get }

    /// Calls `completion` with the ticket to sign a request with, now or once a refresh has ended.
    ///
    /// - Returns: Disposing it stops waiting (the completion is then not called).
    func ticket(_ completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void) -> Disposable

    /// A request signed with `ticket` was answered unauthorized: calls `completion` with the ticket
    /// to replay it with, or with the failure (`.refreshFailed`, or the refresh's transport error).
    ///
    /// - Returns: Disposing it stops waiting (the completion is then not called).
    func unauthorized(
        with ticket: AuthenticationTicket,
        _ completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void
    ) -> Disposable

    /// Whether `ticket` is still the one to sign with: false once a refresh has begun or a newer
    /// credential exists. The client asks when a ticket arrives and asks for another if not, so that
    /// nothing goes out with a credential being replaced. The default says true.
    func isCurrent(_ ticket: AuthenticationTicket) -> Bool

    /// Attaches the client whose requests this authenticator signs (for a refresh that is itself a
    /// request). Called once by `HTTPClient.init`; the default does nothing.
    func attach(_ client: HTTPClient)
}

extension Authenticator {
    public func isCurrent(_ ticket: AuthenticationTicket) -> Bool {
        true
    }

    public func attach(_ client: HTTPClient) {}
}

/// What a request is signed with: a header, and the version of the credential it came from (so
/// that a refusal of an old version does not start a new refresh).
///
/// - Note: A value type; `Sendable`. Its description hides the header value.
public struct AuthenticationTicket: Sendable, Equatable, CustomStringConvertible {
    /// The header to set, usually `Authorization`.
    public let headerName: String
    /// Its value, e.g. `Bearer eyJ…` (a secret).
    public let headerValue: String
    /// The credential's version: it grows by one with every new credential.
    public let version: UInt64

    /// Creates a ticket.
    public init(headerName: String = "Authorization", headerValue: String, version: UInt64) {
        self.headerName = headerName
        self.headerValue = headerValue
        self.version = version
    }

    /// What the ticket says, without the credential.
    public var description: String {
        "AuthenticationTicket(\(headerName): <redacted>, version \(version))"
    }
}
