import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension Reactive where Base: HTTPClient {
    /// Stores `request` in `outbox`, to be sent by `deliver(_:)` until it has its one outcome —
    /// also after this process dies.
    ///
    /// The request is built as the client builds any (base URL, default headers, body encoding)
    /// and stored with a new `Idempotency-Key` (or the one the request sets), which every attempt
    /// sends, so that a server that honours it applies the request once. It must be safe to send
    /// more than once: `.keyed` (what a POST should declare), `.idempotent`, or `.byMethod` with an
    /// idempotent method (PUT, DELETE…).
    ///
    /// - Returns: A cold `Single`: each subscription stores one entry and succeeds once the entry's
    ///   file and its directory are flushed to disk. It fails with an `HTTPClientError`, nothing
    ///   stored: `.invalidRequest` for a request that cannot be built, one that may not be sent
    ///   twice (`.notIdempotent`, or a POST or PATCH `.byMethod`), or one with a file body;
    ///   `.rejected` when the outbox is full (`maxEntries`, `maxBytes`); `.fileSystem` when the disk
    ///   refuses the write or the outbox is closed.
    /// - Note: Thread-safe; the result arrives on the outbox's own threads. Disposing before it arrives
    ///   does not stop a write already started: the entry may still be stored (its event says so).
    public func enqueue<R: Request>(_ request: R, in outbox: Outbox) -> Single<OutboxEntry> {
        let client = base
        let parts = client.requestParts(for: request)
        return Single.createCapturingNonSendable { single in
            let stored: StoredEntry
            do {
                stored = try client.storedEntry(for: parts)
            } catch {
                single(.failure(error))
                return Disposables.create()
            }
            outbox.store.append(stored) { result in
                if case .success(let entry) = result {
                    client.emitOutboxEvent(for: entry, .outboxEnqueued(entry: entry.id, depth: outbox.depth))
                }
                single(result.mapError { $0 })
            }
            return Disposables.create()
        }
    }

    /// Sends the entries of `outbox`, each until it has its one outcome, and emits that outcome.
    ///
    /// Each entry goes through the client like any request — interceptors, authentication (added
    /// now, never stored), host protection, the fleet's quota, the retry policy — with its own
    /// `Idempotency-Key`. When that call fails in a way that may pass (no connection, a time-out,
    /// 408, 425, 429, 5xx, an open circuit, a refresh that failed), the entry waits
    /// (`OutboxDeliveryOptions.redeliveryDelay`, at least a `Retry-After`, sooner when its host
    /// becomes reachable again) and is sent again, without end: an entry leaves only with an
    /// outcome. The outcome is an answer with an acceptable status, or a failure that repeating
    /// cannot change (another 4xx, a request the client refuses): recorded on disk, handed to
    /// `onNext`, then removed. Entries of one origin go in enqueue order, one at a time (the
    /// default, `concurrentPerHost: 1`); origins do not wait for each other, so one failing host or
    /// one poisoned entry does not hold the rest. Entries stored while it runs are delivered too.
    ///
    /// Outcomes an earlier process recorded but may not have handed over come first, with
    /// `isRecovered` set (the same `entry.id` as then).
    ///
    /// - Returns: A hot-while-subscribed `Observable` that does not complete while the client runs:
    ///   one subscription per outbox at a time (a second fails with `.invalidRequest`). The client's
    ///   shutdown completes it once the calls in flight end; entries without an outcome stay for
    ///   the next start. Disposing stops it the same way, at once. It fails with `.fileSystem` if an
    ///   outcome cannot be recorded (the entry stays and is sent again next time).
    /// - Note: Thread-safe; deliveries arrive one at a time on the delivery's own serial queue.
    public func deliver(_ outbox: Outbox, options: OutboxDeliveryOptions = OutboxDeliveryOptions()) -> Observable<OutboxDelivery> {
        let client = base
        return Observable.create { observer in
            let run = OutboxDeliveryRun(client: client, outbox: outbox, options: options, observer: observer)
            run.start()
            return Disposables.create { run.stop() }
        }
    }
}

extension HTTPClient {
    /// The entry `enqueue` stores for `parts`: the request built now, with its key.
    func storedEntry(for parts: RequestParts) throws(HTTPClientError) -> StoredEntry {
        var request = try buildRequest(parts)
        // The retries' own rule: an outbox sends an entry until it has an outcome.
        guard parts.idempotency.allowsRepeatAfterSending(parts.method, idempotentMethods: configuration.retryPolicy.retryableMethods) else {
            throw HTTPClientError(
                .invalidRequest,
                message: "\(parts.requestName) (\(parts.method.rawValue)) may not be sent twice: an outbox sends it until it has an outcome, so declare it .keyed (or .idempotent)",
                url: request.url, phase: .notSent
            )
        }
        let body: Data
        switch request.body {
        case .empty: body = Data()
        case .bytes(let data): body = data
        case .file:
            throw HTTPClientError(.invalidRequest, message: "an outbox stores the body itself: a file body cannot be enqueued", url: request.url, phase: .notSent)
        }
        let key: String
        if let own = request.headers[Idempotency.keyHeader] {
            key = own
        } else {
            key = UUID().uuidString
            request.headers.add(name: Idempotency.keyHeader, value: key)
        }
        return StoredEntry(
            id: UUID(), sequence: 0, idempotencyKey: key, enqueuedAt: clock.now.timeIntervalSince1970,
            method: parts.method.rawValue, url: request.url.absoluteString, headers: request.headers.map { [$0.name, $0.value] },
            body: body, timeout: request.timeoutInterval, path: parts.path, requestName: parts.requestName,
            authorization: parts.authorizationType.map(StoredEntry.text(for:)), declaresAuthorization: parts.declaresAuthorization,
            requiresAuthentication: parts.requiresAuthentication, bypassesSuspension: parts.bypassesSuspension
        )
    }

    /// Sends a stored entry as a call of this client (its retry policy, `.keyed`: the stored key on
    /// every attempt); `completion` gets the answer (an acceptable status) or the failure.
    func sendStored(
        _ stored: StoredEntry, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let plan: HTTPCall.Plan
        do throws(HTTPClientError) {
            guard let url = URL(string: stored.url) else {
                throw HTTPClientError(.invalidRequest, message: "the stored URL cannot be read", phase: .notSent)
            }
            let request = HTTPTransportRequest(
                method: HTTPMethod(rawValue: stored.method), url: url, headers: stored.headerFields,
                body: stored.body.isEmpty ? .empty : .bytes(stored.body), timeoutInterval: stored.timeout
            )
            plan = HTTPCall.Plan(
                request: request, method: request.method, path: stored.path, requestName: stored.requestName,
                authorizationType: stored.authorizationType, declaresAuthorization: stored.declaresAuthorization,
                bypassesSuspension: stored.bypassesSuspension,
                policy: try validated(configuration.retryPolicy), idempotency: .keyed,
                requiresAuthentication: stored.requiresAuthentication && authenticator != nil,
                cachePolicy: .reload, gate: hosts.gate(for: url)
            )
        } catch {
            return refuse(
                error, method: HTTPMethod(rawValue: stored.method), path: stored.path, requestName: stored.requestName,
                idempotency: .keyed, completion: completion
            )
        }
        return start(plan, decode: { response, _ in response }, completion: completion)
    }

    /// Emits an outbox event with the entry's method and (redacted) URL.
    func emitOutboxEvent(for entry: OutboxEntry, _ kind: HTTPClientEvent.Kind) {
        eventHub.emit(HTTPClientEvent(
            requestID: nil, method: entry.method, url: Redaction.standard.url(entry.url), timestamp: clock.now, kind: kind
        ))
    }
}
