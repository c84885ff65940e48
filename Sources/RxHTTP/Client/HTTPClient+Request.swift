import Foundation

extension HTTPClient {
    /// Sends a request described by a `Request` type and decodes its `Response`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - completion: Receives the response or an `HTTPClientError`, exactly once (`.cancelled`
    ///     if the handle is cancelled first).
    /// - Returns: A handle that cancels the request.
    /// - Note: Thread-safe. `completion` and `request.decodeResponse` run on the configuration's
    ///   callback queue, never synchronously inside this call. Failures are retried per the
    ///   request's own `retryPolicy` if it states one, else per `configuration.retryPolicy`.
    @discardableResult
    public func request<R: Request>(
        _ request: R,
        completion: @escaping (Result<R.Response, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let parts = requestParts(for: request)
        let policy = request.retryPolicy.resolved(client: configuration.retryPolicy)
        return send(parts, policy: policy, decode: request.decodeResponse, completion: completion)
    }

    /// What `send` needs of a `Request`.
    func requestParts<R: Request>(for request: R) -> RequestParts {
        let declared = request.parameters
        var query = ParameterValues.compact(request.query)
        var body: (any RequestBody)? = request.body
        var conflict: HTTPClientError?
        if !declared.isEmpty {
            let placed = request.parameterEncoding.place(declared, for: request.method)
            query.merge(placed.query) { parameter, _ in parameter }
            if let parameterBody = placed.body {
                if request.body is EmptyBody {
                    body = parameterBody
                } else {
                    conflict = HTTPClientError(
                        .invalidRequest, message: "\(R.self) declares a body and parameters that go in the body: choose one", phase: .notSent
                    )
                }
            }
        }
        return RequestParts(
            baseURL: request.baseURL,
            path: request.path,
            method: request.method,
            headers: request.headers,
            query: query,
            body: conflict.map { ConflictingBody(error: $0) } ?? body,
            timeout: request.timeout,
            bypassesSuspension: request.bypassesSuspension,
            authorizationType: (request as? any AccessTokenAuthorizable)?.authorizationType,
            declaresAuthorization: request is any AccessTokenAuthorizable,
            requestName: String(describing: R.self),
            idempotency: request.idempotency,
            requiresAuthentication: request.requiresAuthentication,
            cachePolicy: request.cachePolicy
        )
    }
}

/// Stands for a body that cannot be sent: fails the request with its error when it is encoded.
private struct ConflictingBody: RequestBody {
    let error: HTTPClientError

    func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        throw error
    }
}
