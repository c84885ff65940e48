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
    ///   request's own policy if it is a `RetryableRequest`, else per `configuration.retryPolicy`.
    @discardableResult
    public func request<R: Request>(
        _ request: R,
        completion: @escaping (Result<R.Response, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let parts = requestParts(for: request)
        let policy = (request as? any RetryableRequest)?.retryPolicy ?? configuration.retryPolicy
        return send(parts, policy: policy, decode: request.decodeResponse, completion: completion)
    }

    /// What `send` needs of a `Request`.
    func requestParts<R: Request>(for request: R) -> RequestParts {
        RequestParts(
            baseURL: request.baseURL,
            path: request.path,
            method: request.method,
            headers: request.headers,
            query: ParameterValues.compact(request.query),
            body: request.body,
            timeout: request.timeout,
            bypassesSuspension: request.bypassesSuspension,
            authorizationType: (request as? any AccessTokenAuthorizable)?.authorizationType,
            declaresAuthorization: request is any AccessTokenAuthorizable,
            requestName: String(describing: R.self),
            idempotency: request.idempotency,
            requiresAuthentication: request.requiresAuthentication
        )
    }
}
