import Foundation

/// Turns `[String: Any?]` parameters into query/form pairs or JSON objects, dropping nil values
/// (also nils nested in optionals, `Optional<Optional<Int>>.some(nil)`).
enum ParameterValues {
    /// `value` without its optional wrappers, or nil if it is (a wrapped) nil.
    static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return unwrap(child.value)
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
    static func pairs(_ parameters: [String: Any]) -> [(String, String)] {
        var result: [(String, String)] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] {
                flatten(key: key, value: value, into: &result)
            }
        }
        return result
    }

    private static func flatten(key: String, value: Any, into result: inout [(String, String)]) {
        guard let value = unwrap(value) else { return }
        if let dictionary = value as? [String: Any?] {
            for subkey in dictionary.keys.sorted() {
                if let subvalue = dictionary[subkey], let subvalue {
                    flatten(key: "\(key)[\(subkey)]", value: subvalue, into: &result)
                }
            }
        } else if let array = value as? [Any?] {
            for element in array {
                if let element {
                    flatten(key: "\(key)[]", value: element, into: &result)
                }
            }
        } else {
            result.append((key, scalarString(value)))
        }
    }

    /// The text form of a single value.
    static func scalarString(_ value: Any) -> String {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let bool as Bool where type(of: value) == Bool.self: return bool ? "true" : "false"
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let raw as any RawRepresentable: return scalarString(raw.rawValue)
        default: return String(describing: value)
        }
    }

    /// A value `JSONSerialization` accepts: optionals unwrapped (nil dropped from objects, `null`
    /// in arrays), `Encodable` values encoded with `encoder`; nil if `value` cannot be represented.
    static func jsonObject(_ value: Any, encoder: JSONEncoder) -> Any? {
        guard let value = unwrap(value) else { return NSNull() }
        switch value {
        case is String, is Bool, is NSNull, is Int, is Int8, is Int16, is Int32, is Int64,
             is UInt, is UInt8, is UInt16, is UInt32, is UInt64, is Double, is Float, is NSNumber:
            if let double = value as? Double, !double.isFinite { return nil }
            if let float = value as? Float, !float.isFinite { return nil }
            return value
        case let dictionary as [String: Any?]:
            var object: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let element, unwrap(element) != nil else { continue }
                guard let converted = jsonObject(element, encoder: encoder) else { return nil }
                object[key] = converted
            }
            return object
        case let array as [Any?]:
            var elements: [Any] = []
            for element in array {
                guard let element else {
                    elements.append(NSNull())
                    continue
                }
                guard let converted = jsonObject(element, encoder: encoder) else { return nil }
                elements.append(converted)
            }
            return elements
        case let encodable as any Encodable:
            guard let data = try? encoder.encode(encodable) else { return nil }
            return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        default:
            return nil
        }
    }
}
