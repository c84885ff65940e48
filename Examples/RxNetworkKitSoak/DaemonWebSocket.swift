import Foundation
import Synchronization
import RxNetworkKit
#if AsyncHTTPClient
import RxNetworkKitAsyncHTTPClient
#endif

/// The daemon soak's WebSocket (trait `AsyncHTTPClient`: URLSession cannot upgrade): `/ws` of
/// the API on a second client with `AsyncHTTPClientTransport`. Each connection sends
/// `<connection>:0`, `<connection>:1`… and drops after 50; the API's restarts drop it too. Within
/// each connection the messages must arrive in order, without a gap; the socket reconnects by
/// itself for the whole run.
///
/// - Note: Thread-safe. Without the trait it does nothing and says so.
final class DaemonWebSocket: Sendable {
    private struct State {
        var subscriptions: [Disposable] = []
        var connection: String?
        var nextIndex = 0
        var messages = 0
        var connections = 0
        var violations = 0
        var firstViolation: String?
        var states: [String: Int] = [:]
        var ending: String?
    }

    /// The daemon client's transport for `choice`: nil (the client's own URLSession) or an
    /// `AsyncHTTPClientTransport` of its own, which the client shuts down with itself.
    static func transport(_ choice: DaemonSoak.Options.Transport) -> (any HTTPTransport)? {
        #if AsyncHTTPClient
        if choice == .asyncHTTPClient { return AsyncHTTPClientTransport() }
        #endif
        return nil
    }

    static var isAvailable: Bool {
        #if AsyncHTTPClient
        true
        #else
        false
        #endif
    }

    /// Opens what AsyncHTTPClientTransport shares process-wide once used — NIO's event loops and
    /// their descriptors, which live as long as the process, as Dispatch's do — before the soak
    /// takes its descriptor baseline.
    static func warmUp(_ url: URL) {
        #if AsyncHTTPClient
        let client = HTTPClient(baseURL: url, transport: AsyncHTTPClientTransport())
        _ = try? client.rx.request(Ping(baseURL: url)).toBlocking(timeout: 5).single()
        DaemonSoak.awaitShutdown(of: client)
        #endif
    }

    /// The second client (nil without the trait).
    let client: HTTPClient?
    private let state = Mutex(State())

    init(baseURL: URL) {
        #if AsyncHTTPClient
        client = HTTPClient(baseURL: baseURL, configuration: .init(timeout: 5), transport: AsyncHTTPClientTransport())
        #else
        client = nil
        #endif
    }

    func start() {
        guard let client else { return }
        let socket = client.webSocket(
            path: "/ws",
            reconnect: ReconnectPolicy(delay: .exponential(initial: 0.2, multiplier: 2, maxDelay: 2), jitter: .full),
            options: WebSocketOptions(pingInterval: 5, pongTimeout: 5)
        )
        let states = socket.state.subscribe(onNext: { [weak self] state in self?.changed(state) })
        let messages = socket.messages.subscribe(
            onNext: { [weak self] message in self?.received(message) },
            onError: { [weak self] error in self?.ended("failed: \(error)") },
            onCompleted: { [weak self] in self?.ended("completed") }
        )
        state.withLock { $0.subscriptions = [states, messages] }
    }

    /// Stops listening: the last dispose closes the socket.
    func stop() {
        let subscriptions = state.withLock { state -> [Disposable] in
            defer { state.subscriptions = [] }
            return state.subscriptions
        }
        subscriptions.forEach { $0.dispose() }
    }

    private func changed(_ socketState: WebSocketState) {
        let name = switch socketState {
        case .idle: "idle"
        case .connecting: "connecting"
        case .open: "open"
        case .reconnecting: "reconnecting"
        case .closed: "closed"
        }
        state.withLock { $0.states[name, default: 0] += 1 }
    }

    private func received(_ message: WebSocketMessage) {
        state.withLock { state in
            state.messages += 1
            guard case .text(let text) = message, let colon = text.lastIndex(of: ":"),
                  let index = Int(text[text.index(after: colon)...]) else {
                state.violations += 1
                return
            }
            let connection = String(text[..<colon])
            if connection != state.connection {
                state.connections += 1
                state.connection = connection
                state.nextIndex = 0
            }
            if index != state.nextIndex {
                state.violations += 1
                state.firstViolation = state.firstViolation ?? "connection \(connection): \(index) where \(state.nextIndex) was due"
            }
            state.nextIndex = index + 1
        }
    }

    private func ended(_ how: String) {
        state.withLock { $0.ending = $0.ending ?? how }
    }

    var snapshot: (messages: Int, connections: Int, violations: Int, firstViolation: String?, states: [String: Int], ending: String?) {
        state.withLock { ($0.messages, $0.connections, $0.violations, $0.firstViolation, $0.states, $0.ending) }
    }
}
