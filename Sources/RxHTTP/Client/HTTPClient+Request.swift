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
    ///   callback queue, never synchronously inside this call.
    @discardableResult
    public func request<R: Request>(
        _ request: R,
        completion: @escaping (Result<R.Response, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let parts = RequestParts(
            baseURL: request.baseURL,
            path: request.path,
            method: request.method,
            headers: request.headers,
            query: ParameterValues.pairs(ParameterValues.compact(request.query)),
            body: request.body,
            timeout: request.timeout,
            bypassesSuspension: request.bypassesSuspension,
            authorizationType: (request as? any AccessTokenAuthorizable)?.authorizationType,
            declaresAuthorization: request is any AccessTokenAuthorizable,
            requestName: String(describing: R.self)
        )
        return start(parts, decode: request.decodeResponse, completion: completion)
    }
}
