import Foundation
import RxCore

/// Sends one `HTTPTransportRequest` and hands back the whole response: the seam between
/// `HTTPClient` and the network, so that a faster engine, or `StubTransport` in tests, can be
/// plugged in.
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
/// A transport implements `send(_:options:completion:)`; `stream(_:options:receive:)` (its default
/// buffers the whole response) and `upgrade(_:options:completion:)` (its default says
/// `.unsupported`) when it can do better. The `URLRequest` requirements are what transports
/// implemented before `HTTPTransportRequest`: a transport that still implements only those keeps
/// working (the defaults convert between the two, at a cost per request) and the compiler says
/// which method to implement instead.
///
/// - Note: Implementations are thread-safe; `completion` may run on any thread.
public protocol HTTPTransport: Sendable {
    /// Starts sending `request` under `options` (redirect policy, largest body).
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    func send(
        _ request: HTTPTransportRequest,
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
        _ request: HTTPTransportRequest,
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
        _ request: HTTPTransportRequest,
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

    // MARK: Before HTTPTransportRequest

    /// Starts sending a Foundation request. Superseded by `send(_:options:completion:)` with an
    /// `HTTPTransportRequest`; the default converts and calls it.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    @available(*, deprecated, message: "implement send(_:options:completion:) taking an HTTPTransportRequest")
    func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable

    /// Starts sending a Foundation request under `options`. Superseded by the
    /// `HTTPTransportRequest` requirement; the default calls `send(_:completion:)`.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    @available(*, deprecated, message: "implement send(_:options:completion:) taking an HTTPTransportRequest")
    func send(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable

    /// Streams the response to a Foundation request. Superseded by the `HTTPTransportRequest`
    /// requirement; the default buffers through `send(_:options:completion:)`.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - receive: Receives the parts in order.
    /// - Returns: Disposing it cancels the exchange.
    @available(*, deprecated, message: "implement stream(_:options:receive:) taking an HTTPTransportRequest")
    func stream(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable

    /// Asks to switch protocols with a Foundation request. Superseded by the
    /// `HTTPTransportRequest` requirement; the default fails with `.unsupported`.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - options: What the client asks of the exchange.
    ///   - completion: Receives the answer or the error, at most once.
    /// - Returns: Disposing it before the answer cancels the exchange.
    @available(*, deprecated, message: "implement upgrade(_:options:completion:) taking an HTTPTransportRequest")
    func upgrade(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable
}

extension HTTPTransport {
    /// Sends through the `URLRequest` requirement of a transport written before
    /// `HTTPTransportRequest`, converting the request.
    @available(*, deprecated, message: "implement send(_:options:completion:) taking an HTTPTransportRequest")
    public func send(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        send(request.urlRequest, options: options, completion: completion)
    }

    /// Streams through the `URLRequest` requirement (whose default buffers): a transport written
    /// before `HTTPTransportRequest` keeps its own streaming.
    public func stream(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        (FoundationRequestBridge() as any FoundationRequestBridging).stream(
            request.urlRequest, on: self, options: options, receive: receive
        )
    }

    /// Switches through the `URLRequest` requirement, whose default fails with `.unsupported`.
    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        (FoundationRequestBridge() as any FoundationRequestBridging).upgrade(
            request.urlRequest, on: self, options: options, completion: completion
        )
    }

    public func shutdown() {}

    public var shutsDownWithClient: Bool { false }

    @available(*, deprecated, message: "implement send(_:options:completion:) taking an HTTPTransportRequest")
    public func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: completion) { send($0, options: .standard, completion: completion) }
    }

    @available(*, deprecated, message: "implement send(_:options:completion:) taking an HTTPTransportRequest")
    public func send(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        send(request, completion: completion)
    }

    @available(*, deprecated, message: "implement stream(_:options:receive:) taking an HTTPTransportRequest")
    public func stream(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: receive) { bufferedStream($0, options: options, receive: receive) }
    }

    /// A stream served by `send(_:options:completion:)`: the head, the whole body as one chunk, the
    /// end.
    func bufferedStream(
        _ request: HTTPTransportRequest,
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

    @available(*, deprecated, message: "implement upgrade(_:options:completion:) taking an HTTPTransportRequest")
    public func upgrade(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        unsupportedUpgrade(of: request.url, completion: completion)
    }

    /// Fails a protocol switch with `.unsupported` (phase `.notSent`), asynchronously as a transport
    /// would answer, naming the transport.
    func unsupportedUpgrade(
        of url: URL?, completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        let error = HTTPClientError(
            .unsupported, message: "\(type(of: self)) cannot switch protocols (no WebSocket support)", url: url, phase: .notSent
        )
        unsupportedUpgradeQueue.async { completion(.failure(error)) }
        return Disposables.create()
    }

    /// `request` as an `HTTPTransportRequest` handed to `body`, or its conversion error handed to
    /// `failing`.
    static func converting<Value>(
        _ request: URLRequest, failing: @Sendable (Result<Value, any Error>) -> Void,
        _ body: (HTTPTransportRequest) -> Disposable
    ) -> Disposable {
        do {
            return body(try HTTPTransportRequest(request))
        } catch {
            failing(.failure(error))
            return Disposables.create()
        }
    }
}

/// Reaches the deprecated `URLRequest` requirements from the defaults that must still call them
/// (a transport written before `HTTPTransportRequest` may implement them), without a deprecation
/// warning on every build of this module.
private protocol FoundationRequestBridging {
    func stream(
        _ request: URLRequest, on transport: any HTTPTransport, options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable
    func upgrade(
        _ request: URLRequest, on transport: any HTTPTransport, options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable
}

private struct FoundationRequestBridge: FoundationRequestBridging {
    @available(*, deprecated)
    func stream(
        _ request: URLRequest, on transport: any HTTPTransport, options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        transport.stream(request, options: options, receive: receive)
    }

    @available(*, deprecated)
    func upgrade(
        _ request: URLRequest, on transport: any HTTPTransport, options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        transport.upgrade(request, options: options, completion: completion)
    }
}

/// A transport written for `HTTPTransportRequest` whose `URLRequest` methods, which code written
/// before may still call on it, convert the request and forward to the `HTTPTransportRequest` ones.
/// (`HTTPTransport`'s own defaults go the other way, for transports written before.) The package's
/// transports conform; so may yours: the conformance adds no requirement.
///
/// - Note: Thread-safe as the transport is.
public protocol URLRequestForwarding: HTTPTransport {}

extension URLRequestForwarding {
    /// Buffers: the head, the whole body as one chunk, the end (see `HTTPTransport`).
    public func stream(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        bufferedStream(request, options: options, receive: receive)
    }

    /// Fails with `HTTPClientError(.unsupported)`, asynchronously.
    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        unsupportedUpgrade(of: request.url, completion: completion)
    }

    @available(*, deprecated, message: "send an HTTPTransportRequest with send(_:options:completion:)")
    public func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        send(request, options: .standard, completion: completion)
    }

    @available(*, deprecated, message: "send an HTTPTransportRequest with send(_:options:completion:)")
    public func send(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: completion) { send($0, options: options, completion: completion) }
    }

    @available(*, deprecated, message: "stream an HTTPTransportRequest with stream(_:options:receive:)")
    public func stream(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: receive) { stream($0, options: options, receive: receive) }
    }

    @available(*, deprecated, message: "switch with an HTTPTransportRequest through upgrade(_:options:completion:)")
    public func upgrade(
        _ request: URLRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: completion) { upgrade($0, options: options, completion: completion) }
    }
}

/// Where a transport without protocol switches refuses one: a serial queue, which always gets a
/// thread, not the global pool, whose threads blocked callers may hold.
private let unsupportedUpgradeQueue = DispatchQueue(label: "RxHTTP.HTTPTransport.unsupportedUpgrade")
