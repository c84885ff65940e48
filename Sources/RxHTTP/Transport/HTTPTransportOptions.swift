import Foundation

/// What the client asks of a transport besides the request itself: the redirect policy and the
/// largest body it will accept.
///
/// - Note: A value type; `Sendable`.
public struct HTTPTransportOptions: Sendable, Hashable {
    /// The default largest response body: 64 MiB.
    public static let defaultMaxResponseBodySize = 64 * 1_024 * 1_024

    /// The largest accepted `maxResponseBodySize`: 4 GiB.
    public static let maxResponseBodySizeLimit = 4 * 1_024 * 1_024 * 1_024

    /// Which redirects are followed, and how.
    public var redirectPolicy: RedirectPolicy
    /// The largest body accepted, in bytes after decoding (gzip/deflate): a bigger one fails with
    /// `.responseTooLarge` as soon as it passes the limit (or at once when `Content-Length`
    /// announces it), and the connection is closed. Clamped to 0...4 GiB.
    public var maxResponseBodySize: Int
    /// Header names (besides `Authorization`, `Proxy-Authorization` and `Cookie`) that carry
    /// credentials and are removed when a redirect leaves the request's origin.
    public var credentialHeaderNames: Set<String>
    /// Set by `HTTPClient`, which checks every header name and value (`HeaderValidation`) before a
    /// request reaches its transport: a transport that checks them too may skip that. False for
    /// anyone else's options. SPI for the package's transports, not API.
    @_spi(TransportSupport) public var headersAreChecked = false
    /// For a streamed body: the bytes a transport that cannot pause its reads (URLSession on Linux)
    /// may hold for a reader that fell behind before it stops reading. `HTTPClient` sets the
    /// stream's own buffer (`StreamOptions`/`TransferOptions.maxBufferedBytes`); 8 MiB otherwise.
    /// SPI for the package's transports, not API.
    @_spi(TransportSupport) public var maxStreamBacklogBytes = 8 << 20
    /// For a streamed body: when its reader has room for more, for a transport that can pause its
    /// reads. Set by `HTTPClient` per stream; nil otherwise. Not part of equality.
    /// SPI for the package's transports, not API.
    @_spi(TransportSupport) public var streamDemand: (any StreamDemand)?

    /// Equal when every setting is; a stream's `streamDemand` is not a setting and is not compared.
    public static func == (lhs: HTTPTransportOptions, rhs: HTTPTransportOptions) -> Bool {
        lhs.redirectPolicy == rhs.redirectPolicy && lhs.maxResponseBodySize == rhs.maxResponseBodySize
            && lhs.credentialHeaderNames == rhs.credentialHeaderNames && lhs.headersAreChecked == rhs.headersAreChecked
            && lhs.maxStreamBacklogBytes == rhs.maxStreamBacklogBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(redirectPolicy)
        hasher.combine(maxResponseBodySize)
        hasher.combine(credentialHeaderNames)
        hasher.combine(headersAreChecked)
        hasher.combine(maxStreamBacklogBytes)
    }

    /// Creates options; every parameter has the default described on its property.
    public init(
        redirectPolicy: RedirectPolicy = .follow,
        maxResponseBodySize: Int = HTTPTransportOptions.defaultMaxResponseBodySize,
        credentialHeaderNames: Set<String> = []
    ) {
        self.redirectPolicy = redirectPolicy
        self.maxResponseBodySize = min(max(0, maxResponseBodySize), Self.maxResponseBodySizeLimit)
        self.credentialHeaderNames = credentialHeaderNames
    }

    /// The defaults.
    public static let standard = HTTPTransportOptions()
}
