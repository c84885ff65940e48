import Foundation

/// Where a call the client makes for itself starts in the interceptor chain.
enum InternalCallStart: Hashable, Sendable {
    /// After the cache: a revalidation, which may still share an exchange.
    case afterCache
    /// After coalescing: the exchange coalesced calls share.
    case afterCoalescing
}

extension HTTPClient {
    /// What a send needs besides decoding: everything `buildRequest` turns into the request value.
    struct RequestParts {
        var baseURL: URL?
        var path: String
        var method: HTTPMethod
        var headers: [String: String]
        /// Query parameters, nil values already dropped; flattened (and checked) when built.
        var query: [String: Any]
        var body: (any RequestBody)?
        /// A file the body streams from (an upload), instead of `body`.
        var fileBody: HTTPFileBody?
        var timeout: TimeInterval?
        var bypassesSuspension: Bool
        var authorizationType: AuthorizationType?
        var declaresAuthorization: Bool
        var requestName: String
        var idempotency: Idempotency
        var requiresAuthentication: Bool = true
        var cachePolicy: CachePolicy = .useProtocol
    }

    /// The one entry of every request: builds it, then hands it to its call — the retry loop that
    /// sends, retries under `policy` and delivers once. A request that cannot be built (or a
    /// policy with an invalid deadline) fails with `.invalidRequest` on the callback queue and
    /// nothing is sent.
    ///
    /// With a `stream` pump the call ends when an acceptable head arrives (its output decoded from
    /// the head, an empty body) and the body flows through the pump.
    func send<Output>(
        _ parts: RequestParts,
        policy: RetryPolicy,
        stream: StreamPump? = nil,
        upgrade: WebSocketUpgradeSlot? = nil,
        decode: @escaping (HTTPResponse, ResponseDecodingContext) throws -> Output,
        completion: @escaping (Result<Output, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        var plan: HTTPCall.Plan
        do throws(HTTPClientError) {
            plan = try makePlan(parts, policy: policy)
            plan.stream = stream
            plan.upgrade = upgrade
        } catch {
            return refuse(
                error, method: parts.method, path: parts.path, requestName: parts.requestName, idempotency: parts.idempotency,
                completion: completion
            )
        }
        return start(plan, decode: decode, completion: completion)
    }

    /// Starts the call of a request that could not be built: nothing is sent; its error reaches the
    /// completion on the callback queue — or `.cancelled`, if the handle is cancelled first — after
    /// the events, plugins and observing interceptors heard of the call like of any other.
    func refuse<Output>(
        _ error: HTTPClientError, method: HTTPMethod, path: String, requestName: String, idempotency: Idempotency,
        completion: @escaping (Result<Output, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        // Nothing of the request is sent or shown: its URL (the error's, if it got that far) is
        // only a placeholder here; the call reports `error.url`.
        let placeholder = error.url ?? baseURL ?? URL(fileURLWithPath: "/")
        let plan = HTTPCall.Plan(
            request: HTTPTransportRequest(method: method, url: placeholder, timeoutInterval: configuration.timeout),
            method: method, path: path, requestName: requestName, authorizationType: nil, declaresAuthorization: false,
            bypassesSuspension: false, policy: .none, idempotency: idempotency,
            requiresAuthentication: false, cachePolicy: .useProtocol, gate: nil, refusal: error
        )
        return start(plan, decode: { _, _ -> Output in throw error }, completion: completion)
    }

    /// Starts the call of a built `plan` (through the signed chain when it needs authentication).
    func start<Output>(
        _ plan: HTTPCall.Plan,
        decode: @escaping (HTTPResponse, ResponseDecodingContext) throws -> Output,
        completion: @escaping (Result<Output, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let receiver = HTTPCall.Receiver(decode: decode, completion: completion)
        let signed = plan.requiresAuthentication && authenticator != nil
        let call = HTTPCall(
            client: self, id: makeRequestID(), plan: plan, chain: signed ? signedChain : unsignedChain, receiver: receiver
        )
        call.start()
        return HTTPRequestHandle(call: call)
    }

    /// Starts a call the client makes for its own needs — the exchange coalesced calls share, a
    /// revalidation behind a stale answer — with `plan` (its deadline dropped: the callers' own
    /// deadlines end their waits), through the interceptors after `start`. Its events are its own;
    /// shutdown stops it like any call.
    ///
    /// - Parameter completion: The raw answer (an acceptable status) or the failure, on the
    ///   callback context.
    /// - Returns: The call, to cancel.
    @discardableResult
    func startInternalCall(
        _ plan: HTTPCall.Plan, after start: InternalCallStart,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) -> HTTPCall {
        var plan = plan
        plan.policy.deadline = nil
        plan.stream = nil
        let chains = internalChains[start] ?? (signedChain, unsignedChain)
        let receiver = HTTPCall.Receiver(decode: { response, _ in response }, completion: completion)
        let call = HTTPCall(
            client: self, id: makeRequestID(), plan: plan, chain: plan.requiresAuthentication ? chains.signed : chains.unsigned,
            receiver: receiver
        )
        call.start()
        return call
    }

    /// `policy` with its deadline checked and bounded.
    func validated(_ policy: RetryPolicy) throws(HTTPClientError) -> RetryPolicy {
        var policy = policy
        if let deadline = policy.deadline {
            guard let valid = TimeoutBounds.clamped(deadline) else {
                throw HTTPClientError(.invalidRequest, message: "the retry deadline must be a positive number of seconds", phase: .notSent)
            }
            policy.deadline = valid < TimeoutBounds.maximum ? valid : nil
        }
        return policy
    }

    private func makePlan(_ parts: RequestParts, policy: RetryPolicy) throws(HTTPClientError) -> HTTPCall.Plan {
        let policy = try validated(policy)
        var request = try buildRequest(parts)
        if parts.idempotency == .keyed, !request.headers.contains(Idempotency.keyHeader) {
            // One key per call: every attempt and replay of this call sends the same request.
            request.headers.add(name: Idempotency.keyHeader, value: UUID().uuidString)
        }
        return HTTPCall.Plan(
            request: request, method: parts.method, path: parts.path, requestName: parts.requestName,
            authorizationType: parts.authorizationType, declaresAuthorization: parts.declaresAuthorization,
            bypassesSuspension: parts.bypassesSuspension,
            policy: policy, idempotency: parts.idempotency,
            requiresAuthentication: parts.requiresAuthentication && authenticator != nil,
            cachePolicy: parts.cachePolicy,
            gate: parts.baseURL == nil ? baseGate : hosts.gate(for: request.url)
        )
    }

    /// The request value for `parts`: URL, method, the default headers overridden by the request's,
    /// body, time-out.
    func buildRequest(_ parts: RequestParts) throws(HTTPClientError) -> HTTPTransportRequest {
        let query = try ParameterValues.pairs(parts.query)
        let url: URL
        if let base = parts.baseURL {
            url = try URLBuilder.url(base: base, path: parts.path, parameters: query)
        } else if let base = parsedBaseURL {
            url = try URLBuilder.url(base: base, path: parts.path, parameters: query)
        } else {
            throw baseURLError ?? HTTPClientError(.invalidRequest, message: "no base URL")
        }
        guard HeaderValidation.isValidToken(parts.method.rawValue) else {
            throw HTTPClientError(
                .invalidRequest, message: "method \(HeaderValidation.escaped(parts.method.rawValue)) is not a valid HTTP token", url: url
            )
        }
        let timeout: TimeInterval
        if let requested = parts.timeout {
            guard let valid = TimeoutBounds.clamped(requested) else {
                throw HTTPClientError(.invalidRequest, message: "the request's time-out must be a positive number of seconds", url: url)
            }
            timeout = valid
        } else {
            timeout = configuration.timeout
        }
        // Every header is checked: the defaults once, when the client was made (unless one of them
        // failed: then all of them here, after the request's own may have replaced it), the
        // request's own and the body's type on each request.
        var headers = defaultHeaderFields
        if !parts.headers.isEmpty {
            // The request's own fields replace defaults of the same name (any case), in name order.
            headers.reserveCapacity(headers.count + parts.headers.count)
            for (name, value) in parts.headers.sorted(by: { $0.key < $1.key }) {
                headers.replaceOrAdd(name: name, value: value)
            }
        }
        if defaultHeadersAreValid {
            try HeaderValidation.validate(parts.headers, url: url)
        } else {
            try HeaderValidation.validate(headers, url: url)
        }
        var sentBody = HTTPTransportRequest.Body.empty
        if let file = parts.fileBody {
            sentBody = .file(file)
            if !headers.contains("Content-Type") {
                headers.add(name: "Content-Type", value: "application/octet-stream")
            }
        } else if let body = parts.body {
            let encoded: HTTPBody?
            do {
                encoded = try body.encodeBody(using: configuration.jsonEncoder)
            } catch var error as HTTPClientError {
                error.url = url
                throw error
            } catch {
                throw HTTPClientError(
                    .invalidRequest, message: "the body cannot be encoded: \(HTTPClientError.describe(error))",
                    url: url, underlying: error
                )
            }
            if let encoded {
                sentBody = .bytes(encoded.data)
                if let contentType = encoded.contentType, !headers.contains("Content-Type") {
                    try HeaderValidation.validate(["Content-Type": contentType], url: url)
                    headers.add(name: "Content-Type", value: contentType)
                }
            }
        }
        return HTTPTransportRequest(method: parts.method, url: url, headers: headers, body: sentBody, timeoutInterval: timeout)
    }
}
