import Foundation
import RxCore

/// Sends one `URLRequest` and hands back the whole response: the seam between `HTTPClient` and
/// the network, so that a faster engine, or `StubTransport` in tests, can be plugged in.
///
/// Contract: `completion` is called at most once, with the response (any status code) or an
/// error; never after the returned disposable was disposed — disposing cancels the exchange and
/// returns promptly, whatever the exchange is doing. The transport enforces
/// `request.timeoutInterval` over the whole exchange and fails with `HTTPClientError(.timedOut)`
/// when it passes. Errors are best given as `HTTPClientError`s with a truthful `phase` (see
/// `HTTPClientError.Phase`); system errors (`URLError` codes in `NSURLErrorDomain`) are mapped by
/// the client, which then assumes the request may have been sent unless the code says the
/// connection was never made.
///
/// A transport implements `send(_:completion:)`; one that can honour the client's redirect policy
/// and body limit implements `send(_:options:completion:)` too (its default ignores the options,
/// and the client then checks the body size only after the fact).
///
/// - Note: Implementations are thread-safe; `completion` may run on any thread.
public protocol HTTPTransport: Sendable {
    /// Starts sending `request`.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable

    /// Starts sending `request` under `options` (redirect policy, largest body).
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    func send(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable

    /// Starts sending `request` and hands back its response as it arrives: `.head`, then `.body`
    /// chunks, then `.end` — or a failure at any point. The body is not bounded by
    /// `options.maxResponseBodySize` (a stream may be endless: its reader bounds it) and
    /// `request.timeoutInterval` bounds the wait for the head only.
    ///
    /// The default implementation buffers: it sends with `send(_:options:completion:)` and delivers
    /// the whole body as one chunk, so every transport can serve a stream.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - receive: Receives the parts in order, then nothing after `.end` or a failure; never after
    ///     the returned disposable was disposed.
    /// - Returns: Disposing it cancels the exchange.
    func stream(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable

    /// Sends `request` asking the server to switch protocols (a WebSocket opening handshake: `GET`
    /// with `Upgrade` and `Connection: Upgrade`, headers sent as given) and reports its answer: on
    /// 101 the connection, which then carries raw bytes both ways; on any other status the whole
    /// response. `request.timeoutInterval` bounds connecting and the wait for the head. Redirects
    /// are not followed.
    ///
    /// The default implementation fails with `HTTPClientError(.unsupported)`: a transport that
    /// cannot hand over its connection says so instead of hanging.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange (the body limit of a non-101 answer).
    ///   - completion: Receives the answer or the error, at most once; never after the returned
    ///     disposable was disposed.
    /// - Returns: Disposing it before the answer cancels the exchange; after a `.switched` answer it
    ///   does nothing (the connection is the caller's).
    func upgrade(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable

    /// Releases what the transport holds (sessions, connection pools) once no request is in flight;
    /// called by `HTTPClient.shutdown(gracePeriod:)` on a transport the client created, and on one
    /// whose `shutsDownWithClient` is true. The default does nothing.
    func shutdown()

    /// Whether an `HTTPClient` given this transport calls `shutdown()` when its own shutdown ends:
    /// true for a transport that owns what nobody else can release (an AsyncHTTPClient it
    /// created). The default is false: a transport handed to a client stays the caller's to release.
    var shutsDownWithClient: Bool { get }
}

extension HTTPTransport {
    public func send(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        send(request, completion: completion)
    }

    public func shutdown() {}

    public var shutsDownWithClient: Bool { false }

    public func stream(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        send(request, options: options) { result in
            switch result {
            case .success(let response):
                receive(.success(.head(HTTPResponseHead(statusCode: response.statusCode, headers: response.headers, url: response.url))))
                if !response.body.isEmpty {
                    receive(.success(.body(response.body)))
                }
                receive(.success(.end))
            case .failure(let error):
                receive(.failure(error))
            }
        }
    }
}
