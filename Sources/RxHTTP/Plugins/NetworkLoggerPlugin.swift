import Foundation
import RxCore

/// Logs every request and its outcome to a sink: method, URL, headers, status, duration and
/// sizes — never bodies, and never secrets.
///
/// Redacted by default: the values of `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie` (and a few `X-…-Token`/`X-API-Key` headers), of token-like query parameters
/// (`access_token`, `token`, `api_key`, `password`, `secret`, … and any name containing `token`,
/// `password` or `secret`) and passwords in URLs.
///
/// ```
/// --> GET https://api.example.com/users?access_token=<redacted> (headers: Accept: application/json, Authorization: <redacted>; body: 0 bytes)
/// <-- 200 GET https://api.example.com/users?access_token=<redacted> (12.4 ms, 512 bytes)
/// ```
///
/// - Note: Thread-safe. The sink is called from the thread that sends and from the callback
///   queue, possibly concurrently, and must be thread-safe.
public final class NetworkLoggerPlugin: HTTPPlugin {
    /// The header names (compared case-insensitively) redacted by default.
    public static var defaultRedactedHeaders: Set<String> { Redaction.defaultHeaderNames }
    /// The query parameter names (compared case-insensitively) redacted by default.
    public static var defaultRedactedQueryParameters: Set<String> { Redaction.defaultQueryNames }

    private let sink: @Sendable (String) -> Void
    private let redactedHeaders: Set<String>
    private let redactedQueryParameters: Set<String>
    private let logsHeaders: Bool
    private let startTimes = LockedState<[UInt64: UInt64]>.make([:])

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - logsHeaders: Whether request and response headers are logged (redacted); default true.
    ///   - redactedHeaders: Header names whose values are replaced by `<redacted>`.
    ///   - redactedQueryParameters: Query parameter names whose values are replaced.
    ///   - sink: Receives each line, e.g. `{ print($0) }`.
    public init(
        logsHeaders: Bool = true,
        redactedHeaders: Set<String> = NetworkLoggerPlugin.defaultRedactedHeaders,
        redactedQueryParameters: Set<String> = NetworkLoggerPlugin.defaultRedactedQueryParameters,
        sink: @escaping @Sendable (String) -> Void
    ) {
        self.sink = sink
        self.logsHeaders = logsHeaders
        self.redactedHeaders = Set(redactedHeaders.map { $0.lowercased() })
        self.redactedQueryParameters = Set(redactedQueryParameters.map { $0.lowercased() })
    }

    public func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
        let now = DispatchTime.now().uptimeNanoseconds
        startTimes.withLock { $0[info.id] = now }
        var details: [String] = []
        if logsHeaders {
            let headers = Redaction.redactedHeaders(request.allHTTPHeaderFields ?? [:], names: redactedHeaders)
            details.append("headers: " + headers.map { "\($0.0): \($0.1)" }.joined(separator: ", "))
        }
        details.append("body: \(request.httpBody?.count ?? 0) bytes")
        sink("--> \(info.method) \(urlText(request.url)) (\(details.joined(separator: "; ")))")
    }

    public func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {
        let start = startTimes.withLock { $0.removeValue(forKey: info.id) }
        let elapsed = start.map { Double(DispatchTime.now().uptimeNanoseconds &- $0) / 1_000_000 }
        let duration = elapsed.map { String(format: "%.1f ms", $0) } ?? "? ms"
        let url = urlText(request.url)
        switch result {
        case .success(let response):
            sink("<-- \(response.statusCode) \(info.method) \(url) (\(duration), \(response.body.count) bytes\(headerText(response.headers)))")
        case .failure(let error):
            if let status = error.statusCode {
                sink("<-- \(status) \(info.method) \(url) (\(duration), \(error.body?.count ?? 0) bytes) \(error.code.rawValue)")
            } else {
                sink("<-- \(error.code.rawValue) \(info.method) \(url) (\(duration)) \(error.message ?? "")")
            }
        }
    }

    private func urlText(_ url: URL?) -> String {
        guard let url else { return "<no url>" }
        return Redaction.redactedURLString(url, queryNames: redactedQueryParameters)
    }

    private func headerText(_ headers: [String: String]) -> String {
        guard logsHeaders, !headers.isEmpty else { return "" }
        let redacted = Redaction.redactedHeaders(headers, names: redactedHeaders)
        return "; headers: " + redacted.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}
