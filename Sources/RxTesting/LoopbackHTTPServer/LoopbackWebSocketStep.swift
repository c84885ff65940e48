import Foundation

/// A message of a WebSocket connection to `LoopbackHTTPServer`.
public enum LoopbackWebSocketMessage: Sendable, Equatable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// One step of the script a WebSocket connection to `LoopbackHTTPServer` runs
/// (`LoopbackHTTPResponse.webSocket(_:protocol:)`), after the server accepted the upgrade.
///
/// Between and after the steps the server keeps reading: it records every message the client
/// sends (`LoopbackHTTPServer.webSocketMessages(at:)`), answers pings with pongs (unless told to
/// `ignorePings`) and answers the client's close frame with its own. When the script ends the
/// connection stays open that way until the client closes it or the server stops.
public enum LoopbackWebSocketStep: Sendable, Equatable {
    /// Sends a message in one frame.
    case send(LoopbackWebSocketMessage)
    /// Sends a text message split into `fragments` frames (at least one).
    case sendFragmented(String, fragments: Int)
    /// Sends `count` text messages, `"\(prefix)0"`, `"\(prefix)1"`…, as fast as the socket takes them.
    case sendMany(count: Int, prefix: String)
    /// Writes these bytes as they are: a frame cut in half, one that breaks the protocol.
    case sendRaw(Data)
    /// Sends each of the client's next `count` messages back to it (`Int.max`: all, until it closes).
    case echo(count: Int)
    /// Sends a ping with this payload (at most 125 bytes are sent).
    case ping(Data)
    /// Sleeps (real time; `stop()` ends it early), still reading and answering the client.
    case pause(TimeInterval)
    /// From now on, pings are not answered: a half-open connection as the client sees it.
    case ignorePings
    /// Sends a close frame with `code` and `reason`, waits up to a second for the client's, then
    /// closes the connection.
    case close(code: UInt16, reason: String)
    /// Closes the TCP connection at once, without a close frame.
    case drop
}
