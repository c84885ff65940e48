import Foundation

/// The status code of a WebSocket close (RFC 6455 §7.4), and what it means for reconnecting.
///
/// A `WebSocket` reconnects after a close that says the trouble may pass (`reconnects`): the server
/// going away, restarting, overloaded, or the connection lost without a close (1006). It ends for
/// good after a close that says it will not: normal closure (the stream completes), a protocol or
/// policy violation, data the endpoint cannot take, or an application code 3000–4999 (it fails with
/// `HTTPClientError.Code.webSocketClosed`, carrying the code).
///
/// - Note: A value type; `Sendable`.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The code on the wire.
    public let rawValue: UInt16

    /// Creates a code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Creates a code from a literal.
    public init(integerLiteral value: UInt16) {
        self.rawValue = value
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure: WebSocketCloseCode = 1000
    /// 1001: the endpoint is going away (a server restarting, a client shutting down).
    public static let goingAway: WebSocketCloseCode = 1001
    /// 1002: the peer broke the protocol.
    public static let protocolError: WebSocketCloseCode = 1002
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData: WebSocketCloseCode = 1003
    /// 1005: the close frame carried no code (never sent).
    public static let noStatusReceived: WebSocketCloseCode = 1005
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure: WebSocketCloseCode = 1006
    /// 1007: a message's data was not consistent with its type (text that is not UTF-8).
    public static let invalidPayload: WebSocketCloseCode = 1007
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation: WebSocketCloseCode = 1008
    /// 1009: a message was too big to process.
    public static let messageTooBig: WebSocketCloseCode = 1009
    /// 1010: the server did not negotiate an extension the client requires.
    public static let mandatoryExtension: WebSocketCloseCode = 1010
    /// 1011: the server met an unexpected condition.
    public static let internalServerError: WebSocketCloseCode = 1011
    /// 1012: the server is restarting.
    public static let serviceRestart: WebSocketCloseCode = 1012
    /// 1013: the server is overloaded; try again later.
    public static let tryAgainLater: WebSocketCloseCode = 1013
    /// 1014: a gateway got an invalid answer from upstream.
    public static let badGateway: WebSocketCloseCode = 1014

    /// Whether a connection the server closed with this code is opened again (per the socket's
    /// `ReconnectPolicy`): 1001, 1006, 1011–1014. Every other code ends the socket for good.
    public var reconnects: Bool {
        switch rawValue {
        case 1001, 1006, 1011...1014: true
        default: false
        }
    }

    /// Whether the close ends the socket cleanly (its `messages` complete): 1000 and 1005.
    var isNormal: Bool {
        rawValue == 1000 || rawValue == 1005
    }

    /// The code's number, as `1001`.
    public var description: String {
        String(rawValue)
    }
}
