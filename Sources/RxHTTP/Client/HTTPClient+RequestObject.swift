import Foundation

extension HTTPClient {
    /// Sends a request by path and decodes the response into `T`.
    ///
    /// Nil parameter values are dropped. With `.automatic` encoding, parameters go in the query
    /// string for GET, HEAD and DELETE and in a JSON object body otherwise; a query already in
    /// `path` is kept and followed by them. The model is decoded with the configuration's
    /// decoder, from inside its envelope when one is configured.
    ///
    /// - Parameters:
    ///   - path: The path under the base URL, e.g. `"/users/42"` or `"search?q=swift"`.
    ///   - method: The method; default `.get`.
    ///   - parameters: The parameters; nil values are dropped.
    ///   - encoding: Where the parameters go; default `.automatic`.
    ///   - headers: Headers over the default ones.
    ///   - idempotency: Whether the request may be sent again after reaching the server; default
    ///     `.byMethod` (see `Idempotency`).
    ///   - completion: Receives the model or an `HTTPClientError`, exactly once (`.cancelled` if
    ///     the handle is cancelled first).
    /// - Returns: A handle that cancels the request.
    /// - Note: Thread-safe. `completion` runs on the configuration's callback queue, never
    ///   synchronously inside this call. Failures are retried per `configuration.retryPolicy`.
    @discardableResult
    public func requestObject<T: Decodable>(
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: Any?]? = nil,
        encoding: ParameterEncoding = .automatic,
        headers: [String: String] = [:],
        idempotency: Idempotency = .byMethod,
        completion: @escaping (Result<T, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let (query, body) = encoding.place(parameters, for: method)
        let parts = RequestParts(
            baseURL: nil, path: path, method: method, headers: headers, query: query, body: body,
            timeout: nil, bypassesSuspension: false, authorizationType: nil, declaresAuthorization: false,
            requestName: "requestObject", idempotency: idempotency
        )
        return send(
            parts, policy: configuration.retryPolicy,
            decode: DecodableResponseDecoding<T>().decode, completion: completion
        )
    }

    /// `requestObject(path:…)` with the model's type spelled out, for a completion that does not
    /// name it: `client.requestObject(User.self, path: "/users/42") { result in … }`.
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - path: The path under the base URL.
    ///   - method: The HTTP method; GET by default.
    ///   - parameters: Nil values are dropped; placed per `encoding`.
    ///   - encoding: Where `parameters` go; by default the query for GET, HEAD and DELETE, a JSON
    ///     body otherwise.
    ///   - headers: Headers over the client's defaults.
    ///   - idempotency: Whether the request may be sent again after reaching the server.
    ///   - completion: Receives the model or an `HTTPClientError`, exactly once.
    /// - Returns: A handle that cancels the request.
    /// - Note: Thread-safe; `completion` runs on the configuration's callback queue.
    @discardableResult
    public func requestObject<T: Decodable>(
        _ type: T.Type,
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: Any?]? = nil,
        encoding: ParameterEncoding = .automatic,
        headers: [String: String] = [:],
        idempotency: Idempotency = .byMethod,
        completion: @escaping (Result<T, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        requestObject(
            path: path, method: method, parameters: parameters, encoding: encoding, headers: headers, idempotency: idempotency,
            completion: completion
        )
    }
}
