import Foundation

/// A response envelope such as `{"status": 0, "message": "ok", "data": {...}}`: the model is
/// under `dataKey`, and `statusKey` says whether the call succeeded.
///
/// Off by default (`HTTPClient.Configuration.envelope` is nil). When set, models are decoded from
/// the value under `dataKey`; an envelope whose status is not a success fails the request with
/// `.envelopeFailure`, `message` holding the text under `messageKey`.
///
/// - Note: A value type; `Sendable`.
public struct ResponseEnvelope: Sendable {
    /// The key of the status field; default `status`.
    public var statusKey: String
    /// The key of the message field; default `message`.
    public var messageKey: String
    /// The key of the payload; default `data`. Dots descend into nested objects (`result.data`).
    public var dataKey: String
    /// Whether a status value means success. It receives nil when the status field is missing.
    public var isSuccess: @Sendable (JSONValue?) -> Bool

    /// Creates an envelope description.
    ///
    /// - Parameters:
    ///   - statusKey: The key of the status field.
    ///   - messageKey: The key of the message field.
    ///   - dataKey: The key (or dotted key path) of the payload.
    ///   - isSuccess: Whether a status means success. The default accepts a missing status,
    ///     `true`, `0`, `200`, and the strings `"0"`, `"200"`, `"ok"` and `"success"` (any case).
    public init(
        statusKey: String = "status",
        messageKey: String = "message",
        dataKey: String = "data",
        isSuccess: @escaping @Sendable (JSONValue?) -> Bool = ResponseEnvelope.defaultIsSuccess
    ) {
        self.statusKey = statusKey
        self.messageKey = messageKey
        self.dataKey = dataKey
        self.isSuccess = isSuccess
    }

    /// The default success test; see `init`.
    public static func defaultIsSuccess(_ status: JSONValue?) -> Bool {
        switch status {
        case nil, .bool(true):
            return true
        case .int(let value):
            return value == 0 || value == 200
        case .double(let value):
            return value == 0 || value == 200
        case .string(let value):
            return ["0", "200", "ok", "success"].contains(value.lowercased())
        default:
            return false
        }
    }
}
