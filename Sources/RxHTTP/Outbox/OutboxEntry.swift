import Foundation

/// A request kept in an `Outbox` until it has its one outcome.
///
/// The outbox stores the request as the client built it — method, URL, headers (the client's
/// defaults and the request's own, not the credentials an authenticator adds when it is sent),
/// body — with a key of its own, sent as `Idempotency-Key` on every attempt, also after a restart,
/// so that the server can apply it once.
public struct OutboxEntry: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The entry's identity, the same in every process that delivers it: what an application
    /// compares to recognise an outcome it may see twice (`OutboxDelivery.isRecovered`).
    public let id: UUID
    /// The `Idempotency-Key` header's value, sent with every attempt to deliver the entry.
    public let idempotencyKey: String
    /// The request's method.
    public let method: HTTPMethod
    /// The request's URL.
    public let url: URL
    /// The request type's name (`CreateOrder`), for logs.
    public let requestName: String
    /// When `enqueue` stored it.
    public let enqueuedAt: Date

    init(_ stored: StoredEntry) {
        id = stored.id
        idempotencyKey = stored.idempotencyKey
        method = HTTPMethod(rawValue: stored.method)
        url = URL(string: stored.url) ?? URL(fileURLWithPath: "/")
        requestName = stored.requestName
        enqueuedAt = Date(timeIntervalSince1970: stored.enqueuedAt)
    }

    /// The method, the request's name, the id and the URL with its secrets redacted.
    public var description: String {
        "OutboxEntry(\(id.uuidString) \(requestName) \(method.rawValue) \(Redaction.standard.url(url)))"
    }
}
