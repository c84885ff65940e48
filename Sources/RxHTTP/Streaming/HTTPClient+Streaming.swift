import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension Reactive where Base: HTTPClient {
    /// The body of `request` as it arrives: one `Data` per chunk the transport hands over.
    ///
    /// The request goes through the client's pipeline up to its head (plugins, authentication, host
    /// protection, the retry policy for failures before the head); an acceptable head starts the
    /// body, which is not bounded in size — `options` bound the wait between bytes and the buffer
    /// ahead of a slow reader. The request's `Response` type is not used.
    ///
    /// - Returns: A cold `Observable`: each subscription sends the request; disposing cancels it.
    ///   It fails with an `HTTPClientError`, completes when the body ends.
    /// - Note: Elements arrive on the stream's own serial queue, in order.
    public func stream<R: Request>(_ request: R, options: StreamOptions = StreamOptions()) -> Observable<Data> {
        let client = base
        return Observable.createCapturingNonSendable { observer in
            client.openStream(
                client.requestParts(for: request), options: options,
                sink: StreamPump.Sink(chunk: { observer.onNext($0) }, end: { observer.onCompleted() }, fail: { observer.onError($0) })
            )
        }
    }

    /// Newline-delimited JSON (NDJSON, JSON Lines) at `path`, one `T` per line.
    ///
    /// - Parameters:
    ///   - path: The path under the base URL.
    ///   - method: The method; default `.get`.
    ///   - parameters: Query parameters (nil values dropped).
    ///   - headers: Headers over the default ones (`Accept: application/x-ndjson` is added).
    ///   - options: Bounds; a line that does not decode fails with `.decodeError` naming its line
    ///     number, or is skipped if `options.skipsInvalidLines`.
    /// - Returns: A cold `Observable`; disposing cancels the exchange.
    public func jsonLines<T: Decodable & Sendable>(
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: Any?]? = nil,
        headers: [String: String] = [:],
        options: StreamOptions = StreamOptions()
    ) -> Observable<T> {
        let client = base
        let parts = HTTPClient.RequestParts(
            baseURL: nil, path: path, method: method, headers: HeaderFields.merging(["Accept": "application/x-ndjson"], headers),
            query: ParameterValues.compact(parameters), body: nil, timeout: nil, bypassesSuspension: false,
            authorizationType: nil, declaresAuthorization: false, requestName: "jsonLines", idempotency: .byMethod
        )
        return client.jsonLinesObservable(parts, options: options)
    }

    /// Newline-delimited JSON for a `Request`, one `R.Response` per line; see
    /// `jsonLines(path:method:parameters:headers:options:)`.
    public func jsonLines<R: Request>(_ request: R, options: StreamOptions = StreamOptions()) -> Observable<R.Response>
    where R.Response: Decodable & Sendable {
        base.jsonLinesObservable(base.requestParts(for: request), options: options)
    }

    /// A Server-Sent Events stream at `path`, reconnecting per `reconnect` with `Last-Event-ID`.
    ///
    /// Events are parsed per the WHATWG EventSource rules (see `ServerSentEvent`). The stream sends
    /// `Accept: text/event-stream`; a head with another content type, a 204 or another 4xx stops it
    /// (a 204 completes it). It reconnects after the connection ends or fails for a reason that may
    /// pass — see `ReconnectPolicy` —, also after the client's own refusals (`.circuitOpen`,
    /// `.rejected`, `.retryBudgetExhausted`), then waiting at least their `retryAfter(now:)`. It
    /// completes on 204, when the policy gives up after a clean end, or when the client shuts down
    /// (the connection ends at once, after the events received: an endless stream does not hold the
    /// shutdown for its grace period).
    ///
    /// - Returns: A cold `Observable`; disposing closes the connection and stops reconnecting.
    /// - Note: Events arrive on a serial queue of the current connection, in order.
    public func serverSentEvents(
        path: String,
        headers: [String: String] = [:],
        options: StreamOptions = StreamOptions(),
        reconnect: ReconnectPolicy = ReconnectPolicy()
    ) -> Observable<ServerSentEvent> {
        let parts = HTTPClient.RequestParts(
            baseURL: nil, path: path, method: .get, headers: headers, query: [:], body: nil, timeout: nil,
            bypassesSuspension: false, authorizationType: nil, declaresAuthorization: false,
            requestName: "serverSentEvents", idempotency: .byMethod
        )
        return base.serverSentEventsObservable(parts, options: options, reconnect: reconnect)
    }

    /// A Server-Sent Events stream for a `Request`; see `serverSentEvents(path:headers:options:reconnect:)`.
    public func serverSentEvents<R: Request>(
        _ request: R,
        options: StreamOptions = StreamOptions(),
        reconnect: ReconnectPolicy = ReconnectPolicy()
    ) -> Observable<ServerSentEvent> {
        base.serverSentEventsObservable(base.requestParts(for: request), options: options, reconnect: reconnect)
    }
}

extension HTTPClient {
    /// Sends `parts` as a stream and wires its body into `sink`. `onHead` may refuse an accepted
    /// head: its error ends the stream before the body.
    ///
    /// - Returns: Disposing it cancels the call and the exchange.
    func openStream(
        _ parts: RequestParts,
        options: StreamOptions,
        isEndless: Bool = false,
        deliversBufferOnOverflow: Bool = false,
        sink: StreamPump.Sink,
        onHead: @escaping @Sendable (HTTPResponseHead) -> HTTPClientError? = { _ in nil }
    ) -> Disposable {
        let pump = StreamPump(
            maxBufferedBytes: options.maxBufferedBytes, isEndless: isEndless, deliversBufferOnOverflow: deliversBufferOnOverflow,
            idleTimeout: options.idleTimeout,
            scheduler: options.scheduler, deliveryScheduler: configuration.callbackScheduler, sink: sink
        )
        let handle = send(parts, policy: configuration.retryPolicy, stream: pump, decode: { response, _ in
            HTTPResponseHead(statusCode: response.statusCode, headers: response.headers, url: response.url)
        }, completion: { result in
            switch result {
            case .success(let head):
                if let refusal = onHead(head) {
                    pump.fail(refusal)
                } else {
                    pump.open()
                }
            case .failure(let error):
                pump.fail(error)
            }
        })
        return Disposables.create {
            // The reader left: nothing more for it, then the call releases the exchange.
            pump.dispose()
            handle.cancel()
        }
    }

    func jsonLinesObservable<T: Decodable & Sendable>(_ parts: RequestParts, options: StreamOptions) -> Observable<T> {
        let decoder = configuration.jsonDecoder
        return Observable.createCapturingNonSendable { observer in
            let parser = LockedState<JSONLinesParser<T>>.make(
                JSONLinesParser(maxLineBytes: options.maxLineBytes, decoder: decoder, skipsInvalidLines: options.skipsInvalidLines)
            )
            return self.openStream(parts, options: options, sink: StreamPump.Sink(
                chunk: { chunk in
                    // Parsed and delivered on the pump's queue: values before a bad line go first.
                    let values = LockedState<[T]>.make([])
                    let failure = parser.withLock { parser -> Error? in
                        do {
                            try parser.feed(chunk) { value in values.withLock { $0.append(value) } }
                            return nil
                        } catch {
                            return error
                        }
                    }
                    for value in values.withLock({ $0 }) { observer.onNext(value) }
                    if let failure { throw failure }
                },
                end: {
                    if let last = try parser.withLock({ try $0.finish() }) { observer.onNext(last) }
                    observer.onCompleted()
                },
                fail: { observer.onError($0) }
            ))
        }
    }
}
