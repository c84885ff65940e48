import Foundation

/// A WebSocket message, whole (its fragments put together).
///
/// - Note: A value type; `Sendable`.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (UTF-8 on the wire; a received one was validated).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// Its size on the wire, in bytes (the payload, without framing).
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
