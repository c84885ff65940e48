import Foundation

/// One event of a `text/event-stream`, as the WHATWG EventSource rules build it.
///
/// - Note: A value type; `Sendable`, `Equatable`.
public struct ServerSentEvent: Sendable, Equatable, CustomStringConvertible {
    /// The `id` in force when the event was dispatched (the last one the stream set), if any; sent
    /// back as `Last-Event-ID` on reconnect.
    public var id: String?
    /// The event type: the `event` field, or `message`.
    public var event: String
    /// The data: the `data` fields joined with line feeds.
    public var data: String
    /// The reconnection time the stream asked for with `retry`, in milliseconds, if it did so before
    /// this event.
    public var retry: Int?

    /// Creates an event.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The event's type, id and size, for logs; never its data, which may carry a secret.
    public var description: String {
        "ServerSentEvent(\(event)\(id.map { ", id \($0)" } ?? ""), \(data.utf8.count) bytes)"
    }
}
