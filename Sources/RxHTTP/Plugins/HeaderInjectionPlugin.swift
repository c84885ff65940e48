import Foundation

/// Adds headers to every request, e.g. an API key or a tracing id.
///
/// - Note: Thread-safe; the closure runs on the thread that sends and must be thread-safe.
public struct HeaderInjectionPlugin: HTTPPlugin {
    private let headers: @Sendable (HTTPRequestInfo) -> [String: String]
    private let overridesExisting: Bool

    /// Adds fixed headers.
    ///
    /// - Parameters:
    ///   - headers: The headers to add.
    ///   - overridesExisting: Whether they replace headers the request already has; default false.
    public init(headers: [String: String], overridesExisting: Bool = false) {
        self.init(overridesExisting: overridesExisting) { _ in headers }
    }

    /// Adds headers computed per request. Values with CR or LF fail the request with
    /// `.invalidRequest` before it is sent.
    ///
    /// - Parameters:
    ///   - overridesExisting: Whether they replace headers the request already has; default false.
    ///   - headers: Returns the headers for a request.
    public init(overridesExisting: Bool = false, headers: @escaping @Sendable (HTTPRequestInfo) -> [String: String]) {
        self.headers = headers
        self.overridesExisting = overridesExisting
    }

    public func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest {
        var request = request
        var fields = request.allHTTPHeaderFields ?? [:]
        for (name, value) in headers(info) {
            if overridesExisting || HeaderFields.value(name, in: fields) == nil {
                HeaderFields.set(value, for: name, in: &fields)
            }
        }
        request.allHTTPHeaderFields = fields
        return request
    }
}
