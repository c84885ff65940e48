import Foundation

/// Turns `[String: Any?]` parameters into query/form pairs or JSON objects, dropping nil values
/// (also nils nested in optionals, `Optional<Optional<Int>>.some(nil)`).
///
/// Parameters are caller data, so every walk is bounded and every value checked: nesting deeper
/// than `maximumDepth` (arrays, dictionaries and optionals all count) fails with
/// `.invalidRequest` before anything recursive runs on it, and so does a value with no faithful
/// text or JSON form — NaN or infinity, a closure, an arbitrary object (its description would put
/// a heap address on the wire). The query, form and JSON paths accept the same values.
///
/// Arrays and dictionaries are always recognised before any cast to a protocol or class type: such
/// a cast makes Foundation bridge an array to `NSArray`, recursively, which overflows the stack on a
/// deeply nested value before any depth check could run.
enum ParameterValues {
    /// The deepest nesting accepted.
    static let maximumDepth = 64

    /// `value` without its optional wrappers, or nil if it is (a wrapped) nil or `NSNull`.
    static func unwrap(_ value: Any) -> Any? {
        var current = value
        // Bounded: a value is never wrapped in more optionals than this in practice.
        for _ in 0..<maximumDepth {
            if isContainer(current) { return current }
            guard let optional = current as? any OptionalParameter else {
                return current is NSNull ? nil : current
            }
            guard let wrapped = optional.wrappedParameter else { return nil }
            current = wrapped
        }
        return nil
    }

    /// Whether `value` is an array or a dictionary (possibly inside optionals), checked with array
    /// and dictionary casts only, which never bridge.
    static func isContainer(_ value: Any) -> Bool {
        value is [Any?] || value is [String: Any?]
    }

    /// The parameters without nil values.
    static func compact(_ parameters: [String: Any?]?) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in parameters ?? [:] {
            if let value, let unwrapped = unwrap(value) {
                result[key] = unwrapped
            }
        }
        return result
    }

    /// Flattens parameters into `(name, value)` pairs, keys sorted: arrays become `key[]=v`
    /// (Alamofire's default), dictionaries `key[sub]=v`, booleans `true`/`false`.
    ///
    /// - Throws: `.invalidRequest` for nesting deeper than `maximumDepth` or a value that cannot be
    ///   sent as text (see the type's documentation).
    static func pairs(_ parameters: [String: Any]) throws(HTTPClientError) -> [(String, String)] {
        var result: [(String, String)] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] {
                try flatten(key: key, value: value, depth: 1, into: &result)
            }
        }
        return result
    }

    private static func flatten(key: String, value: Any, depth: Int, into result: inout [(String, String)]) throws(HTTPClientError) {
        guard depth <= maximumDepth else { throw tooDeep(key) }
        guard let value = unwrap(value) else { return }
        if let dictionary = value as? [String: Any?] {
            for subkey in dictionary.keys.sorted() {
                if let subvalue = dictionary[subkey], let subvalue {
                    try flatten(key: "\(key)[\(subkey)]", value: subvalue, depth: depth + 1, into: &result)
                }
            }
        } else if let array = value as? [Any?] {
            for element in array {
                if let element {
                    try flatten(key: "\(key)[]", value: element, depth: depth + 1, into: &result)
                }
            }
        } else {
            result.append((key, try scalarString(value, name: key)))
        }
    }

    /// The text form of a single value: strings, numbers (finite), booleans, URLs, UUIDs, dates
    /// (ISO 8601), raw-representable values by their raw value, and `LosslessStringConvertible`
    /// values by their description.
    ///
    /// - Throws: `.invalidRequest` naming the parameter (never its value) for anything else.
    static func scalarString(_ value: Any, name: String) throws(HTTPClientError) -> String {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let bool as Bool where type(of: value) == Bool.self: return bool ? "true" : "false"
        case let integer as any BinaryInteger: return String(describing: integer)
        case let double as Double:
            guard double.isFinite else { throw notFinite(name) }
            return String(double)
        case let float as Float:
            guard float.isFinite else { throw notFinite(name) }
            return String(float)
        case let decimal as Decimal:
            guard decimal.isFinite else { throw notFinite(name) }
            return decimal.description
        case let number as NSNumber:
            guard number.doubleValue.isFinite else { throw notFinite(name) }
            return number.stringValue
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let raw as any RawRepresentable:
            // The raw value is checked like any other (an enum backed by a NaN Double fails too).
            guard let rawValue = unwrap(raw.rawValue) else { throw unsupported(name, value) }
            return try scalarString(rawValue, name: name)
        case let text as any LosslessStringConvertible: return text.description
        default: throw unsupported(name, value)
        }
    }

    /// A value `JSONSerialization` accepts: optionals unwrapped (nil dropped from objects, `null`
    /// in arrays), `Encodable` values encoded with `encoder`.
    ///
    /// - Throws: `.invalidRequest` for nesting deeper than `maximumDepth` or a value JSON cannot
    ///   represent (NaN, infinity, a closure, an object that is not `Encodable`).
    static func jsonObject(_ value: Any, encoder: JSONEncoder, depth: Int = 0, path: String = "") throws(HTTPClientError) -> Any {
        guard depth <= maximumDepth else { throw tooDeep(path) }
        guard let value = unwrap(value) else { return NSNull() }
        if let dictionary = value as? [String: Any?] {
            var object: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let element, unwrap(element) != nil else { continue }
                object[key] = try jsonObject(element, encoder: encoder, depth: depth + 1, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return object
        }
        if let array = value as? [Any?] {
            var elements: [Any] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                guard let element else {
                    elements.append(NSNull())
                    continue
                }
                elements.append(try jsonObject(element, encoder: encoder, depth: depth + 1, path: "\(path)[\(index)]"))
            }
            return elements
        }
        switch value {
        case is String, is Int, is Int8, is Int16, is Int32, is Int64,
             is UInt, is UInt8, is UInt16, is UInt32, is UInt64:
            return value
        case let bool as Bool where type(of: value) == Bool.self:
            return bool
        case let double as Double:
            guard double.isFinite else { throw notFinite(path) }
            return double
        case let float as Float:
            guard float.isFinite else { throw notFinite(path) }
            return float
        case let decimal as Decimal:
            guard decimal.isFinite else { throw notFinite(path) }
            return NSDecimalNumber(decimal: decimal)
        case let number as NSNumber:
            guard number.doubleValue.isFinite else { throw notFinite(path) }
            return number
        case is NSNull:
            return value
        case let encodable as any Encodable:
            let encoded: Any
            do {
                let data = try encoder.encode(encodable)
                encoded = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                throw HTTPClientError(
                    .invalidRequest, message: "the value at \(describe(path)) cannot be encoded as JSON: \(HTTPClientError.describe(error))",
                    underlying: error
                )
            }
            return encoded
        default:
            throw unsupported(path, value)
        }
    }

    private static func describe(_ path: String) -> String {
        path.isEmpty ? "the top level" : HeaderValidation.escaped(path)
    }

    private static func tooDeep(_ name: String) -> HTTPClientError {
        HTTPClientError(
            .invalidRequest,
            message: "the parameters under \(describe(name)) are nested deeper than \(maximumDepth) levels"
        )
    }

    private static func notFinite(_ name: String) -> HTTPClientError {
        HTTPClientError(.invalidRequest, message: "the parameter \(describe(name)) is NaN or infinite, which cannot be sent")
    }

    private static func unsupported(_ name: String, _ value: Any) -> HTTPClientError {
        HTTPClientError(
            .invalidRequest,
            message: "the parameter \(describe(name)) has a value of type \(type(of: value)), which has no text or JSON form"
        )
    }
}

/// Lets `ParameterValues.unwrap` look inside an optional held in an `Any` without `Mirror`.
private protocol OptionalParameter {
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    fileprivate var wrappedParameter: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}
