import Foundation

/// An `application/x-www-form-urlencoded` body: `a=1&b=two+words`, keys sorted, nil values
/// dropped, arrays as `key[]=v` and dictionaries as `key[sub]=v`. Values are checked as query
/// parameters are: NaN, infinity, closures, objects and nesting deeper than 64 levels fail the
/// request with `.invalidRequest`.
public struct FormURLEncodedBody: RequestBody {
    private let parameters: [String: Any?]

    /// Creates a form body from `parameters`.
    public init(_ parameters: [String: Any?]) {
        self.parameters = parameters
    }

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        let pairs = try ParameterValues.pairs(ParameterValues.compact(parameters))
        let text = pairs
            .map { PercentEncoding.encodeFormComponent($0.0) + "=" + PercentEncoding.encodeFormComponent($0.1) }
            .joined(separator: "&")
        return HTTPBody(data: Data(text.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8")
    }
}

extension RequestBody where Self == FormURLEncodedBody {
    /// A form URL-encoded body.
    public static func form(_ parameters: [String: Any?]) -> FormURLEncodedBody {
        FormURLEncodedBody(parameters)
    }
}
