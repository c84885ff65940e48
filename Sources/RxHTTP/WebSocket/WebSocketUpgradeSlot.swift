import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Where the call that opens a WebSocket leaves the connection a 101 handed over, for the socket to
/// take when the call delivers: whoever ends last closes it, so that no race between the answer
/// and a cancel leaks a socket.
final class WebSocketUpgradeSlot: Sendable {
    private enum State {
        case empty
        case holding(any UpgradedConnection, HTTPResponseHead, selectedProtocol: String?)
        /// Taken by the socket, or released: a connection arriving now is closed at once.
        case done
    }

    /// The `Sec-WebSocket-Key` the request carries.
    let key: String
    /// The subprotocols offered.
    let protocols: [String]
    private let state = LockedState<State>.make(.empty)

    init(key: String, protocols: [String]) {
        self.key = key
        self.protocols = protocols
    }

    /// Checks a 101 answer and keeps its connection; returns why it does not open a WebSocket (the
    /// connection is then closed), or nil.
    func accept(_ head: HTTPResponseHead, connection: any UpgradedConnection) -> HTTPClientError? {
        let selected: String?
        do throws(WebSocketHandshake.Failure) {
            selected = try WebSocketHandshake.validate(status: head.statusCode, headers: head.headers, key: key, protocols: protocols)
        } catch {
            connection.close()
            return HTTPClientError(
                .invalidResponse, message: "the server's answer does not open a WebSocket: \(error)",
                statusCode: head.statusCode, url: head.url, headers: head.headers, phase: .responded
            )
        }
        let displaced = state.withLock { state -> (any UpgradedConnection)? in
            switch state {
            case .empty:
                state = .holding(connection, head, selectedProtocol: selected)
                return nil
            case .holding(let previous, _, _):
                // An interceptor sent the request again after a 101: the newer connection wins.
                state = .holding(connection, head, selectedProtocol: selected)
                return previous
            case .done:
                return connection
            }
        }
        displaced?.close()
        return nil
    }

    /// The connection of the delivered 101, taken once.
    func take() -> (connection: any UpgradedConnection, head: HTTPResponseHead, selectedProtocol: String?)? {
        state.withLock { state in
            defer { state = .done }
            if case .holding(let connection, let head, let selected) = state { return (connection, head, selected) }
            return nil
        }
    }

    /// The call failed or was cancelled: closes a connection it left, and any that arrives later.
    func release() {
        take()?.connection.close()
    }
}
