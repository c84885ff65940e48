import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A scriptable HTTP/1.1 server on 127.0.0.1 that tests start themselves, so nothing reaches the internet.
///
/// ```swift
/// let server = LoopbackHTTPServer()
/// try server.start()
/// defer { server.stop() }
/// server.route(.get, "/users/42") { _ in .json(#"{"id":42}"#) }
/// server.route(.get, "/flaky", responses: [.status(503), .status(503), .json("[]")])
/// // ... point a client at server.baseURL or server.url("/users/42") ...
/// XCTAssertEqual(server.requests.map(\.path), ["/users/42"])
/// ```
///
/// It speaks HTTP/1.1 with keep-alive (several requests per connection, pipelining included),
/// `Connection: close`, HTTP/1.0, `Content-Length` and chunked request bodies and
/// `Expect: 100-continue`. Malformed requests get a 4xx/5xx answer and the connection is closed;
/// they never crash the server. Each connection is served by its own thread (up to 512 at once).
/// Routes, the fallback and the request log survive `stop()` and `start()`. It listens on IPv4 only
/// (URLSession on Linux rejects IPv6 literal hosts anyway).
///
/// On Linux, do not answer 401 with `WWW-Authenticate: Basic` unless the client under test answers
/// authentication challenges: URLSession there waits forever for a challenge answer.
///
/// - Note: Thread-safe: routes can be changed and the log read from any thread while it runs.
///   Route handlers run on the thread of the connection they answer, several at once.
public final class LoopbackHTTPServer: Sendable {
    private enum Lifecycle {
        case stopped
        case running(LoopbackServerRun)
        case stopping
    }

    private struct State {
        var lifecycle = Lifecycle.stopped
        var port: UInt16
    }

    private let state: LockedState<State>
    let router = LoopbackRouter()
    let log: LoopbackRequestLog
    /// How many of the next accepted connections are closed before anything is read.
    let acceptDrops = LockedState<Int>.make(0)

    /// Creates a stopped server.
    ///
    /// - Parameters:
    ///   - port: The port to listen on; 0 (the default) picks a free port on the first `start()`,
    ///     and later starts reuse it.
    ///   - requestLogLimit: How many of the most recent requests `requests` keeps, so that a
    ///     long-running embedded server does not grow without bound.
    /// - Note: Thread-safe.
    public init(port: UInt16 = 0, requestLogLimit: Int = 10_000) {
        state = LockedState.make(State(port: port))
        log = LoopbackRequestLog(limit: requestLogLimit)
    }

    deinit {
        stop()
    }

    /// Starts listening on 127.0.0.1 (does nothing if already running).
    ///
    /// The socket has `SO_REUSEADDR`, so starting again on the port of a server that just stopped
    /// works at once. If a `stop()` is still finishing on another thread, waits for it first.
    ///
    /// - Throws: `LoopbackHTTPServerError.addressInUse(port:)` if another socket listens on the port,
    ///   `.socketFailure` if a socket call fails.
    /// - Note: Thread-safe. Returns once the server accepts connections.
    public func start() throws(LoopbackHTTPServerError) {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let outcome = state.withLock { state -> Result<Bool, LoopbackHTTPServerError> in
                switch state.lifecycle {
                case .running:
                    return .success(true)
                case .stopping:
                    return .success(false)
                case .stopped:
                    do throws(LoopbackHTTPServerError) {
                        let run = try LoopbackServerRun(port: state.port, router: router, log: log, acceptDrops: acceptDrops)
                        state.port = run.port
                        state.lifecycle = .running(run)
                        return .success(true)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            switch outcome {
            case .success(true):
                return
            case .success(false) where Date() < deadline:
                Thread.sleep(forTimeInterval: 0.001)
            case .success(false):
                throw .addressInUse(port: port)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Stops the server: closes the listening socket and every open connection (clients see the
    /// connection closed, mid-response if need be), ends pending delays, and waits up to 5 s for the
    /// connection threads to finish. Does nothing if not running.
    ///
    /// - Note: Thread-safe and idempotent. Called from a route handler it does not wait for that
    ///   handler's own connection.
    public func stop() {
        let run = state.withLock { state -> LoopbackServerRun? in
            guard case .running(let run) = state.lifecycle else { return nil }
            state.lifecycle = .stopping
            return run
        }
        guard let run else { return }
        run.stop()
        state.withLock { $0.lifecycle = .stopped }
    }

    /// Whether the server is accepting connections.
    ///
    /// - Note: Thread-safe.
    public var isRunning: Bool {
        state.withLock { state in
            if case .running = state.lifecycle { return true }
            return false
        }
    }

    /// The port the server listens on (or will, on the next `start()`); 0 before a first start on an
    /// ephemeral port.
    ///
    /// - Note: Thread-safe.
    public var port: UInt16 {
        state.withLock { $0.port }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    ///
    /// - Note: Thread-safe.
    public var baseURL: URL {
        url("")
    }

    /// The URL of `pathAndQuery` on this server, such as `url("/search?q=swift")`.
    ///
    /// - Parameter pathAndQuery: A path, optionally with a query; a missing leading `/` is added, and
    ///   characters that cannot appear in a URL are percent-encoded.
    /// - Returns: `http://127.0.0.1:<port><pathAndQuery>`.
    /// - Note: Thread-safe.
    public func url(_ pathAndQuery: String) -> URL {
        let base = "http://127.0.0.1:\(port)"
        let path = pathAndQuery.isEmpty || pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        if let url = URL(string: base + path) { return url }
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        // "http://127.0.0.1:<digits>" always parses; the file URL is never reached.
        return URL(string: base + encoded) ?? URL(string: base) ?? URL(fileURLWithPath: "/")
    }

    /// The number of client connections open right now.
    ///
    /// - Note: Thread-safe.
    public var openConnectionCount: Int {
        state.withLock { state in
            if case .running(let run) = state.lifecycle { return run.openConnectionCount }
            return 0
        }
    }

    /// Closes each of the next `count` connections as soon as it is accepted, before reading a
    /// byte of the request: a server that crashes on accept. The client has written (or is
    /// writing) its request and gets no answer. `0` stops dropping.
    ///
    /// - Parameter count: How many connections to drop; negative counts as 0.
    /// - Note: Thread-safe; dropped connections still count in `acceptedConnectionCount`.
    public func dropConnectionsOnAccept(_ count: Int) {
        acceptDrops.withLock { $0 = max(0, count) }
    }

    /// How many connections the server accepted since it was created (across restarts); tells
    /// whether a client reused keep-alive connections.
    ///
    /// - Note: Thread-safe.
    public var acceptedConnectionCount: Int {
        log.acceptedConnections
    }
}
