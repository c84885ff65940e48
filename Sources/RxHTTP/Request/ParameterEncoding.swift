/// Where `requestObject` puts its parameters.
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
