/// Namespace of the HTTP layer.
public enum RxHTTPModule {
    /// The library's version, as sent in the default User-Agent (`RxNetworkKit/<version>`).
    public static let version = "0.1.0"
}
