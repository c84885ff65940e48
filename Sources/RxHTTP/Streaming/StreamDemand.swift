import Foundation

/// How a streamed body's reader tells a transport that can pause its reads (AsyncHTTPClient) when
/// it has room for more: the transport hands a chunk over, then asks `whenReady` before it reads
/// the next. A transport that cannot pause (URLSession on Linux) ignores it.
///
/// SPI for the package's transports (`HTTPTransportOptions.streamDemand`), not API.
@_spi(TransportSupport)
public protocol StreamDemand: Sendable {
    /// Runs `body` once the reader has room for another chunk — at once when it has, or when the
    /// stream has ended (so that a paused transport never waits for a reader that left). On any
    /// thread; `body` must only resume the transport.
    func whenReady(_ body: @escaping @Sendable () -> Void)
}
