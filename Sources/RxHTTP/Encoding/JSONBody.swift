import Foundation

/// A JSON body encoded from an `Encodable` value with the client's `JSONEncoder`.
public struct JSONBody<Value: Encodable>: RequestBody {
    /// The value sent.
    public let value: Value

    /// Creates a body that sends `value` as JSON (`Content-Type: application/json`).
    public init(_ value: Value) {
        self.value = value
    }

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        HTTPBody(data: try encoder.encode(value), contentType: "application/json")
    }
}

extension RequestBody {
    /// A JSON body encoded from `value` with the client's `JSONEncoder`.
    public static func json<Value: Encodable>(_ value: Value) -> Self where Self == JSONBody<Value> {
        JSONBody(value)
    }
}

/// A JSON object or array built from dictionaries and arrays (`[String: Any?]`, `[Any?]`),
/// serialised with `JSONSerialization`.
///
/// Nil values are dropped from objects and become `null` in arrays; `Encodable` values inside are
/// encoded with the client's encoder. A value JSON cannot represent (a `Date` without an encoder
/// strategy is fine, a closure or NaN is not), or nesting deeper than 64 levels, fails the request
/// with `.invalidRequest` before anything is sent.
public struct JSONObjectBody: RequestBody {
    private let object: Any

    /// A JSON object.
    public init(_ object: [String: Any?]) {
        self.object = object
    }

    /// A JSON array.
    public init(array: [Any?]) {
        self.object = array
    }

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        let converted = try ParameterValues.jsonObject(object, encoder: encoder)
        guard JSONSerialization.isValidJSONObject(converted) else {
            throw HTTPClientError(.invalidRequest, message: "the body contains a value that JSON cannot represent")
        }
        let data = try JSONSerialization.data(withJSONObject: converted, options: [.sortedKeys])
        return HTTPBody(data: data, contentType: "application/json")
    }
}

extension RequestBody where Self == JSONObjectBody {
    /// A JSON object built from a dictionary (nil values dropped).
    public static func jsonObject(_ object: [String: Any?]) -> JSONObjectBody {
        JSONObjectBody(object)
    }

    /// A JSON array built from an array.
    public static func jsonArray(_ array: [Any?]) -> JSONObjectBody {
        JSONObjectBody(array: array)
    }
}
