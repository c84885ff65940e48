import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension HTTPClient: ReactiveCompatible {}

// Each `Single` below hands the call its subscription's completion as it is (`fromCompletion`: the
// typed result goes straight to the subscriber, with no closure, `AnyObserver` or `Event` around it)
// and returns the request's handle as its disposable: disposing it cancels the call (a no-op once the
// call finished).
extension Reactive where Base: HTTPClient {
    /// A `Single` that sends a request by path and decodes the response into `T`; see
    /// `HTTPClient.requestObject(path:method:parameters:encoding:headers:completion:)`.
    ///
    /// Each subscription sends the request once; disposing the subscription cancels it (the
    /// URLSession task, or its place in the hold queue) and nothing is delivered afterwards.
    ///
    /// - Parameters:
    ///   - path: The path under the base URL.
    ///   - method: The method; default `.get`.
    ///   - parameters: The parameters; nil values are dropped.
    ///   - encoding: Where the parameters go; default `.automatic`.
    ///   - headers: Headers over the default ones.
    ///   - idempotency: Whether the request may be sent again after reaching the server; default
    ///     `.byMethod`. `.keyed` sends one `Idempotency-Key` per subscription.
    /// - Returns: A cold `Single` of the model; it fails with an `HTTPClientError`.
    /// - Note: Thread-safe to subscribe from any thread; events arrive on the client's callback
    ///   queue.
    public func requestObject<T: Decodable>(
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: Any?]? = nil,
        encoding: ParameterEncoding = .automatic,
        headers: [String: String] = [:],
        idempotency: Idempotency = .byMethod
    ) -> Single<T> {
        let client = base
        return Single.fromCompletion { (completion: @escaping (Result<T, HTTPClientError>) -> Void) in
            client.requestObject(
                path: path, method: method, parameters: parameters, encoding: encoding, headers: headers,
                idempotency: idempotency, completion: completion
            )
        }
    }

    /// `requestObject(path:…)` with the model's type spelled out, for where nothing else names it:
    /// `client.rx.requestObject(User.self, path: "/users/42")` is a `Single<User>` (as
    /// Alamofire's `responseDecodable(of:)`), instead of the compiler's "type 'Any' cannot
    /// conform to 'Decodable'".
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - path: The path under the base URL; the other parameters as `requestObject(path:…)`'s.
    /// - Returns: A cold `Single` of the model; it fails with an `HTTPClientError`.
    /// - Note: Thread-safe to subscribe from any thread; events arrive on the client's callback
    ///   queue.
    public func requestObject<T: Decodable>(
        _ type: T.Type,
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: Any?]? = nil,
        encoding: ParameterEncoding = .automatic,
        headers: [String: String] = [:],
        idempotency: Idempotency = .byMethod
    ) -> Single<T> {
        requestObject(path: path, method: method, parameters: parameters, encoding: encoding, headers: headers, idempotency: idempotency)
    }

    /// A `Single` that sends `request` and decodes its `Response`; see `HTTPClient.request(_:completion:)`.
    ///
    /// Each subscription sends the request once; disposing the subscription cancels it and
    /// nothing is delivered afterwards.
    ///
    /// - Parameter request: The request.
    /// - Returns: A cold `Single` of the response; it fails with an `HTTPClientError`.
    /// - Note: Thread-safe to subscribe from any thread; events arrive on the client's callback
    ///   queue.
    public func request<R: Request>(_ request: R) -> Single<R.Response> {
        let client = base
        return Single.fromCompletion { (completion: @escaping (Result<R.Response, HTTPClientError>) -> Void) in
            client.request(request, completion: completion)
        }
    }

    /// A `Single` of `request`'s decoded `Response` with the status, headers, URL and timing of the
    /// answer; see `HTTPClient.response(_:completion:)`.
    ///
    /// - Note: Thread-safe to subscribe from any thread; events arrive on the client's callback
    ///   queue.
    public func response<R: Request>(_ request: R) -> Single<DecodedResponse<R.Response>> {
        let client = base
        return Single.fromCompletion { (completion: @escaping (Result<DecodedResponse<R.Response>, HTTPClientError>) -> Void) in
            client.response(request, completion: completion)
        }
    }
}
