extension LoopbackHTTPServer {
    /// Answers requests for `method` and `path` with `handler` (replacing any route for both).
    ///
    /// `path` is matched against the request path without its query, as sent or percent-decoded; a
    /// path ending in `*` matches every path with that prefix. `.any` matches every method, and a
    /// HEAD request with no HEAD route uses the GET route (the body is not sent).
    ///
    /// - Parameters:
    ///   - method: The method to match, or `.any`.
    ///   - path: The path to match, such as `"/users/42"` or `"/files/*"`.
    ///   - handler: Builds the response; if it throws, the client gets a 500 describing the error.
    /// - Note: Thread-safe; takes effect for the next request, even while running. The handler is
    ///   called on the connection's thread, possibly on several threads at once.
    public func route(
        _ method: LoopbackHTTPMethod,
        _ path: String,
        handler: @escaping @Sendable (LoopbackHTTPRequest) throws -> LoopbackHTTPResponse
    ) {
        router.setRoute(method, path, handler: handler)
    }

    /// Answers every request for `method` and `path` with the same `response`.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `.any`.
    ///   - path: The path to match (see `route(_:_:handler:)`).
    ///   - response: The response to send each time.
    /// - Note: Thread-safe; takes effect for the next request.
    public func route(_ method: LoopbackHTTPMethod, _ path: String, _ response: LoopbackHTTPResponse) {
        router.setRoute(method, path, responses: [response])
    }

    /// Answers successive requests for `method` and `path` with successive `responses`; once they are
    /// used up, the last one repeats. `responses: [.status(503), .status(503), .json("{}")]` fails
    /// twice, then succeeds.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `.any`.
    ///   - path: The path to match (see `route(_:_:handler:)`).
    ///   - responses: The responses in order; empty means 404.
    /// - Note: Thread-safe: concurrent requests each take a different response. Setting the route
    ///   again starts the sequence over.
    public func route(_ method: LoopbackHTTPMethod, _ path: String, responses: [LoopbackHTTPResponse]) {
        router.setRoute(method, path, responses: responses)
    }

    /// Removes the route for exactly `method` and `path`, if there is one.
    ///
    /// - Note: Thread-safe.
    public func removeRoute(_ method: LoopbackHTTPMethod, _ path: String) {
        router.removeRoute(method, path)
    }

    /// Removes every route; the fallback stays.
    ///
    /// - Note: Thread-safe.
    public func removeAllRoutes() {
        router.removeAllRoutes()
    }

    /// Sets how requests that match no route are answered (by default `.notFound`, a 404).
    ///
    /// - Parameter handler: Builds the response; if it throws, the client gets a 500.
    /// - Note: Thread-safe. The handler runs on the connection's thread.
    public func setFallback(_ handler: @escaping @Sendable (LoopbackHTTPRequest) throws -> LoopbackHTTPResponse) {
        router.setFallback(handler)
    }
}
