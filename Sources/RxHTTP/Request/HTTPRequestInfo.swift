/// What plugins may know about a request besides its `URLRequest`: a narrow, `Sendable` view.
///
/// - Note: A value type; `Sendable`.
public struct HTTPRequestInfo: Sendable, Hashable {
    /// The call's request id, the same as `callID`: one per call, unique in the process. Attempts
    /// of one call share it; `attempt` tells them apart (`#14.3` in log lines).
    public let id: UInt64
    /// The number of the call this send belongs to: the same for every attempt and replay of one
    /// call, unique in the process (the request id of log lines and events).
    public let callID: UInt64
    /// Which attempt of the call this send is: 1 for the first, 2 for the first retry.
    public let attempt: Int

    /// The request id as log lines show it: `#14` for a first attempt, `#14.3` for the third.
    public var label: String {
        attempt > 1 ? "#\(callID).\(attempt)" : "#\(callID)"
    }
    /// The method.
    public let method: HTTPMethod
    /// The path as the caller gave it (before encoding).
    public let path: String
    /// How the request wants to be signed, if it adopted `AccessTokenAuthorizable`.
    public let authorizationType: AuthorizationType?
    /// Whether the request adopted `AccessTokenAuthorizable` (then a nil `authorizationType`
    /// means "do not sign").
    public let declaresAuthorization: Bool
    /// The name of the request's type (`GetUser`), or `requestObject` for path-based calls.
    public let requestName: String

    /// Creates the view; the client does this for every send. `callID` defaults to `id`.
    public init(
        id: UInt64,
        method: HTTPMethod,
        path: String,
        authorizationType: AuthorizationType?,
        declaresAuthorization: Bool,
        requestName: String,
        callID: UInt64? = nil,
        attempt: Int = 1
    ) {
        self.id = id
        self.callID = callID ?? id
        self.attempt = attempt
        self.method = method
        self.path = path
        self.authorizationType = authorizationType
        self.declaresAuthorization = declaresAuthorization
        self.requestName = requestName
    }
}
