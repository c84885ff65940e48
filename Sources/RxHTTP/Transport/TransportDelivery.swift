import Foundation

/// Where a transport's exchange sends its response: whole (`send`), or as parts (`stream`).
///
/// Shared by `URLSessionTransport` and the transports in sibling packages through
/// `@_spi(TransportSupport)` (not API), so that every exchange ends a stream the same way.
@_spi(TransportSupport)
public enum TransportDelivery: Sendable {
    /// The whole response, or the failure, once.
    case buffered(@Sendable (Result<HTTPResponse, any Error>) -> Void)
    /// The head, body parts as they arrive, then the end — or a failure at any point.
    case streaming(@Sendable (Result<HTTPStreamPart, any Error>) -> Void)

    /// Whether the response goes out as parts.
    public var isStreaming: Bool {
        if case .streaming = self { return true }
        return false
    }

    /// Delivers how the exchange ended: the response or failure for a buffered exchange; for a
    /// stream the end (after the head, if it never went out — a response whose head the engine
    /// never announced, such as a 3xx it did not follow) or the failure.
    ///
    /// - Parameters:
    ///   - result: The response (its body is not streamed again) or the failure.
    ///   - headDelivered: Whether the stream's head already went out.
    public func deliverEnd(_ result: Result<HTTPResponse, any Error>, headDelivered: Bool) {
        switch self {
        case .buffered(let completion):
            completion(result)
        case .streaming(let receive):
            switch result {
            case .success(let response):
                if !headDelivered {
                    receive(.success(.head(HTTPResponseHead(statusCode: response.statusCode, headers: response.headers, url: response.url))))
                }
                receive(.success(.end))
            case .failure(let error):
                receive(.failure(error))
            }
        }
    }
}
