/// Where a request's parameters go (`requestObject(path:parameters:encoding:)`, `Request.parameters`).
public enum ParameterEncoding: Sendable, Hashable {
    /// In the query string for GET, HEAD and DELETE; as a JSON object body otherwise.
    case automatic
    /// In the query string (`a=1&b=x`, keys sorted, arrays as `key[]=v`).
    case query
    /// As a JSON object body (`Content-Type: application/json`).
    case json
    /// As a form body (`Content-Type: application/x-www-form-urlencoded; charset=utf-8`).
    case form
}

extension ParameterEncoding {
    /// `parameters` (nil values dropped) placed for `method`: the query items and the body they make.
    ///
    /// - Returns: The query parameters and the body; the body is nil when they go in the query, or
    ///   when `parameters` is nil (nothing to send, not even `{}`).
    func place(_ parameters: [String: Any?]?, for method: HTTPMethod) -> (query: [String: Any], body: (any RequestBody)?) {
        let compacted = ParameterValues.compact(parameters)
        let resolved = self == .automatic ? (method.encodesParametersInQuery ? .query : .json) : self
        switch resolved {
        case .query, .automatic:
            return (compacted, nil)
        case .json:
            return ([:], parameters == nil ? nil : JSONObjectBody(compacted))
        case .form:
            return ([:], parameters == nil ? nil : FormURLEncodedBody(compacted))
        }
    }
}
