import Foundation
import RxCore

/// Logs every request and its outcome to a sink: request id, method, URL, status, duration, sizes,
/// and optionally headers and bodies — never a secret.
///
/// Redacted by rule (see the README's "Limits and safety"): any header, query parameter, form
/// field or JSON key whose name contains `token`, `secret`, `password`, `passwd`, `auth`,
/// `session`, `cookie`, `key`, `signature` or `credential`, the fixed lists
/// (`defaultRedactedHeaders`, `defaultRedactedQueryParameters`) and the names given here; a
/// password in a URL; sensitive parameters in URLs wherever they appear (the request URL,
/// `Location` and any other header value with a query). `Idempotency-Key` is not a secret and is
/// shown.
///
/// ```
/// --> #7 GET https://api.example.com/users?access_token=<redacted> (body: 0 bytes)
/// <-- #7 200 GET https://api.example.com/users?access_token=<redacted> (12.4 ms, 512 bytes)
/// ```
/// `#7` is the call's request id (`HTTPRequestInfo.callID`, unique in the process); a retry of it
/// logs `#7.2`, `#7.3`.
///
/// - Note: Thread-safe. The sink is called from the thread that sends and from the callback
///   queue, possibly concurrently, and must be thread-safe.
public final class NetworkLoggerPlugin: HTTPPlugin {
    /// The header names (compared case-insensitively) always redacted, besides the rule.
    public static var defaultRedactedHeaders: Set<String> { Redaction.defaultHeaderNames }
    /// The query, form and JSON field names (compared case-insensitively) always redacted, besides
    /// the rule.
    public static var defaultRedactedQueryParameters: Set<String> { Redaction.defaultFieldNames }

    private let sink: @Sendable (String) -> Void
    private let redaction: Redaction
    private let logsHeaders: Bool
    private let bodyLimit: Int?
    /// When each attempt went out, by call and attempt.
    private let startTimes = LockedState<[SendKey: UInt64]>.make([:])

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - logsHeaders: Whether request and response headers are logged (redacted); default false:
    ///     one short line per request and per outcome.
    ///   - logsBodies: Whether bodies are logged: form and JSON bodies with sensitive fields redacted
    ///     (at most `maxLoggedBodyCharacters`), others as their size and type; default false.
    ///   - maxLoggedBodyCharacters: The longest body text logged; clamped to 0...65,536.
    ///   - redactedHeaders: Header names redacted besides the rule and the default list.
    ///   - redactedQueryParameters: Query, form and JSON field names redacted besides the rule and
    ///     the default list.
    ///   - sink: Receives each line, e.g. `{ print($0) }`.
    public init(
        logsHeaders: Bool = false,
        logsBodies: Bool = false,
        maxLoggedBodyCharacters: Int = 1_024,
        redactedHeaders: Set<String> = [],
        redactedQueryParameters: Set<String> = [],
        sink: @escaping @Sendable (String) -> Void
    ) {
        self.sink = sink
        self.logsHeaders = logsHeaders
        self.bodyLimit = logsBodies ? min(max(0, maxLoggedBodyCharacters), 65_536) : nil
        self.redaction = Redaction(additionalNames: redactedHeaders.union(redactedQueryParameters))
    }

    public func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
        let now = DispatchTime.now().uptimeNanoseconds
        startTimes.withLock { $0[SendKey(info)] = now }
        var details: [String] = []
        if logsHeaders {
            details.append("headers: " + headerText(request.allHTTPHeaderFields ?? [:]))
        }
        let body = request.httpBody ?? Data()
        if let bodyLimit, !body.isEmpty {
            let type = HeaderFields.value("Content-Type", in: request.allHTTPHeaderFields ?? [:])
            details.append("body: " + redaction.body(body, contentType: type, limit: bodyLimit))
        } else {
            details.append("body: \(body.count) bytes")
        }
        sink("--> \(info.label) \(info.method) \(urlText(request.url)) (\(details.joined(separator: "; ")))")
    }

    public func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {
        let start = startTimes.withLock { $0.removeValue(forKey: SendKey(info)) }
        let elapsed = start.map { Double(DispatchTime.now().uptimeNanoseconds &- $0) / 1_000_000 }
        let duration = elapsed.map { String(format: "%.1f ms", $0) } ?? "? ms"
        let prefix = "<-- \(info.label)"
        let url = urlText(request.url)
        switch result {
        case .success(let response):
            var line = "\(prefix) \(response.statusCode) \(info.method) \(url) (\(duration), \(response.body.count) bytes"
            if logsHeaders, !response.headers.isEmpty {
                line += "; headers: " + headerText(response.headers)
            }
            if let bodyLimit, !response.body.isEmpty {
                line += "; body: " + redaction.body(response.body, contentType: response.contentType, limit: bodyLimit)
            }
            sink(line + ")")
        case .failure(let error):
            if let status = error.statusCode {
                var line = "\(prefix) \(status) \(info.method) \(url) (\(duration), \(error.body?.count ?? 0) bytes"
                if logsHeaders, let headers = error.headers, !headers.isEmpty {
                    line += "; headers: " + headerText(headers)
                }
                sink(line + ") \(error.code.rawValue)")
            } else {
                sink("\(prefix) \(error.code.rawValue) \(info.method) \(url) (\(duration)) \(redactedMessage(error))")
            }
        }
    }

    /// A stream's line when its body ends: `<<- #7 GET url stream ended (1520.0 ms, 12345 bytes)`.
    public func didEndStream(_ end: HTTPStreamEnd, info: HTTPRequestInfo) {
        let outcome = end.failure.map { "stream failed: \($0.code.rawValue)" } ?? "stream ended"
        sink("<<- \(info.label) \(info.method) \(redaction.urlString(info.path)) \(outcome) (\(String(format: "%.1f ms", end.duration * 1_000)), \(end.bytes) bytes)")
    }

    private func redactedMessage(_ error: HTTPClientError) -> String {
        // Messages name URLs (a refused redirect target): redact them like any URL.
        redaction.urlString(error.message ?? "")
    }

    private func urlText(_ url: URL?) -> String {
        guard let url else { return "<no url>" }
        return redaction.url(url)
    }

    private func headerText(_ headers: [String: String]) -> String {
        redaction.headers(headers).map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}

/// One attempt of one call.
private struct SendKey: Hashable {
    let call: UInt64
    let attempt: Int

    init(_ info: HTTPRequestInfo) {
        call = info.callID
        attempt = info.attempt
    }
}
