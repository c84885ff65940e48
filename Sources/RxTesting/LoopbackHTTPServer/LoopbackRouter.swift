@_spi(RxNetworkKitInternals) import RxCore

/// The route table of a `LoopbackHTTPServer`: which response each method and path gets.
///
/// A route is a method (or `.any`) and a path. A path ending in `*` matches every path that starts
/// with what precedes the `*`. Lookup order for a request: exact path before prefix (longest prefix
/// first); for each, the request's own method, then GET for a HEAD request, then `.any`. The path is
/// compared as sent and, failing that, percent-decoded. Nothing matching gets the fallback.
///
/// - Note: Thread-safe; handlers are called outside the lock, on the connection's thread.
final class LoopbackRouter: Sendable {
    /// A route handler.
    typealias Handler = @Sendable (LoopbackHTTPRequest) throws -> LoopbackHTTPResponse

    private enum Script {
        case handler(Handler)
        /// Successive responses; `next` is the index of the next one, the last one repeats.
        case sequence([LoopbackHTTPResponse], next: Int)
    }

    private struct Key: Hashable {
        var method: LoopbackHTTPMethod
        var path: String
    }

    private struct State {
        var routes: [Key: Script] = [:]
        var fallback: Handler = { _ in .notFound }
    }

    private enum Resolution {
        case response(LoopbackHTTPResponse)
        case handler(Handler)
    }

    private let state = LockedState.make(State())

    /// Adds or replaces the route for `method` and `path` with a handler.
    func setRoute(_ method: LoopbackHTTPMethod, _ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[Key(method: method, path: path)] = .handler(handler) }
    }

    /// Adds or replaces the route for `method` and `path` with successive responses (the last repeats).
    func setRoute(_ method: LoopbackHTTPMethod, _ path: String, responses: [LoopbackHTTPResponse]) {
        let script: Script = responses.isEmpty ? .handler { _ in .notFound } : .sequence(responses, next: 0)
        state.withLock { $0.routes[Key(method: method, path: path)] = script }
    }

    /// Removes the route for exactly `method` and `path`, if any.
    func removeRoute(_ method: LoopbackHTTPMethod, _ path: String) {
        state.withLock { _ = $0.routes.removeValue(forKey: Key(method: method, path: path)) }
    }

    /// Removes every route (the fallback stays).
    func removeAllRoutes() {
        state.withLock { $0.routes.removeAll() }
    }

    /// Sets what requests matching no route get.
    func setFallback(_ handler: @escaping Handler) {
        state.withLock { $0.fallback = handler }
    }

    /// The response for `request`: advances a response sequence, or calls the handler (outside the
    /// lock). A handler that throws yields a 500 whose body describes the error.
    func respond(to request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        let resolution = state.withLock { state -> Resolution in
            guard let key = Self.match(request, in: state.routes) else { return .handler(state.fallback) }
            switch state.routes[key] {
            case .sequence(let responses, let next):
                state.routes[key] = .sequence(responses, next: min(next + 1, responses.count - 1))
                return .response(responses[next])
            case .handler(let handler):
                return .handler(handler)
            case nil:
                return .handler(state.fallback)
            }
        }
        switch resolution {
        case .response(let response):
            return response
        case .handler(let handler):
            do {
                return try handler(request)
            } catch {
                return .text("LoopbackHTTPServer: route handler threw \(error)", status: 500)
            }
        }
    }

    private static func match(_ request: LoopbackHTTPRequest, in routes: [Key: Script]) -> Key? {
        var methods = [request.method]
        if request.method == .head { methods.append(.get) }
        methods.append(.any)
        let paths = request.decodedPath == request.path ? [request.path] : [request.path, request.decodedPath]
        for path in paths {
            for method in methods where routes[Key(method: method, path: path)] != nil {
                return Key(method: method, path: path)
            }
        }
        var best: (key: Key, prefixLength: Int, methodRank: Int)?
        for key in routes.keys where key.path.hasSuffix("*") {
            guard let methodRank = methods.firstIndex(of: key.method) else { continue }
            let prefix = String(key.path.dropLast())
            guard paths.contains(where: { $0.hasPrefix(prefix) }) else { continue }
            let length = prefix.utf8.count
            if let current = best,
                current.prefixLength > length || (current.prefixLength == length && current.methodRank <= methodRank)
            {
                continue
            }
            best = (key, length, methodRank)
        }
        return best?.key
    }
}
