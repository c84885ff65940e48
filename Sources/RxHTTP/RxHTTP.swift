import RxCore

/// Namespace of the HTTP layer; the client arrives with the RxHTTP issue.
public enum RxHTTPModule {
    /// The library's version, as sent in the default User-Agent.
    public static let version = "0.1.0"
}
