import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Logs every request and its outcome to a sink: request id, method, URL, status, duration, sizes,
/// and optionally headers and bodies — never a secret.
///
/// Redacted by rule (see <doc:LimitsAndSafety>): any header, query parameter, form
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

    /// Where the lines go.
    enum Output: Sendable {
        /// One text line per attempt sent and answered, to a closure.
        case sink(@Sendable (String) -> Void)
        #if Logging
        /// A swift-log `Logger`: `.debug` per call, `.trace` per attempt (trait `Logging`).
        case logger(LoggerOutput)
        #endif
    }

    private let output: Output
    private let redaction: Redaction
    private let logsHeaders: Bool
    private let bodyLimit: Int?
    /// When each attempt went out, by call and attempt.
    private let startTimes = LockedState<[SendKey: UInt64]>.make([:])
    /// The redacted URL of each call in flight, for its one `.debug` line (a swift-log logger only).
    private let urls = LockedState<[UInt64: String]>.make([:])

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
    public convenience init(
        logsHeaders: Bool = false,
        logsBodies: Bool = false,
        maxLoggedBodyCharacters: Int = 1_024,
        redactedHeaders: Set<String> = [],
        redactedQueryParameters: Set<String> = [],
        sink: @escaping @Sendable (String) -> Void
    ) {
        self.init(
            output: .sink(sink), logsHeaders: logsHeaders, logsBodies: logsBodies,
            maxLoggedBodyCharacters: maxLoggedBodyCharacters, redactedHeaders: redactedHeaders,
            redactedQueryParameters: redactedQueryParameters
        )
    }

    init(
        output: Output, logsHeaders: Bool, logsBodies: Bool, maxLoggedBodyCharacters: Int,
        redactedHeaders: Set<String>, redactedQueryParameters: Set<String>
    ) {
        self.output = output
        self.logsHeaders = logsHeaders
        self.bodyLimit = logsBodies ? min(max(0, maxLoggedBodyCharacters), 65_536) : nil
        self.redaction = Redaction(additionalNames: redactedHeaders.union(redactedQueryParameters))
    }

    public func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
        switch output {
        case .sink(let sink):
            noteStart(info)
            sink("--> \(info.label) \(info.method) \(urlText(request.url)) (\(requestDetails(request).joined(separator: "; ")))")
        #if Logging
        case .logger(let logger):
            // Nothing is built for a level the logger does not log.
            guard logger.logsCalls else { return }
            let url = urlText(request.url)
            urls.withLock { $0[info.callID] = url }
            guard logger.tracesAttempts else { return }
            noteStart(info)
            var metadata = baseMetadata(info, url: url)
            for detail in requestDetails(request) {
                let parts = detail.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { metadata["http.request.\(parts[0])"] = parts[1] }
            }
            logger.attempt("--> \(info.label) \(info.method) \(url)", metadata)
        #endif
        }
    }

    /// What the `-->` line says besides the URL: headers and the body, as configured.
    private func requestDetails(_ request: URLRequest) -> [String] {
        var details: [String] = []
        if logsHeaders {
            details.append("headers: " + headerText(redaction.headers(request.allHTTPHeaderFields ?? [:])))
        }
        let body = request.httpBody ?? Data()
        if let bodyLimit, !body.isEmpty {
            let type = HeaderFields.value("Content-Type", in: request.allHTTPHeaderFields ?? [:])
            details.append("body: " + redaction.body(body, contentType: type, limit: bodyLimit))
        } else {
            details.append("body: \(body.count) bytes")
        }
        return details
    }

    /// When attempt `info` went out, for its `<--` line.
    private func noteStart(_ info: HTTPRequestInfo) {
        let now = DispatchTime.now().uptimeNanoseconds
        startTimes.withLock { $0[SendKey(info)] = now }
    }

    /// Milliseconds since attempt `info` went out (forgetting when it did).
    private func elapsedSinceStart(_ info: HTTPRequestInfo) -> Double? {
        let start = startTimes.withLock { $0.removeValue(forKey: SendKey(info)) }
        return start.map { Double(DispatchTime.now().uptimeNanoseconds &- $0) / 1_000_000 }
    }

    public func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {
        switch output {
        case .sink(let sink):
            let elapsed = elapsedSinceStart(info)
            sink(answerLine(result, url: urlText(request.url), info: info, elapsed: elapsed))
        #if Logging
        case .logger(let logger):
            guard logger.tracesAttempts else { return }
            let elapsed = elapsedSinceStart(info)
            let line = answerLine(result, url: urlText(request.url), info: info, elapsed: elapsed)
            var metadata = baseMetadata(info, url: urlText(request.url))
            metadata["duration_ms"] = elapsed.map { String(format: "%.1f", $0) }
            switch result {
            case .success(let response): metadata["http.response.status_code"] = String(response.statusCode)
            case .failure(let error):
                metadata["error.type"] = error.code.rawValue
                metadata["http.response.status_code"] = error.statusCode.map(String.init)
            }
            logger.attempt(line, metadata)
        #endif
        }
    }

    /// The `<--` line of an answered (or failed) attempt.
    private func answerLine(_ result: Result<HTTPResponse, HTTPClientError>, url: String, info: HTTPRequestInfo, elapsed: Double?) -> String {
        let duration = elapsed.map { String(format: "%.1f ms", $0) } ?? "? ms"
        let prefix = "<-- \(info.label)"
        switch result {
        case .success(let response):
            var line = "\(prefix) \(response.statusCode) \(info.method) \(url) (\(duration), \(response.body.count) bytes"
            if logsHeaders, !response.headers.isEmpty {
                line += "; headers: " + headerText(redaction.headers(response.headers))
            }
            if let bodyLimit, !response.body.isEmpty {
                line += "; body: " + redaction.body(response.body, contentType: response.contentType, limit: bodyLimit)
            }
            return line + ")"
        case .failure(let error):
            if let status = error.statusCode {
                var line = "\(prefix) \(status) \(info.method) \(url) (\(duration), \(error.body?.count ?? 0) bytes"
                if logsHeaders, let headers = error.headers, !headers.isEmpty {
                    line += "; headers: " + headerText(redaction.headers(headers))
                }
                return line + ") \(error.code.rawValue)"
            }
            return "\(prefix) \(error.code.rawValue) \(info.method) \(url) (\(duration)) \(redactedMessage(error))"
        }
    }

    /// The end of a call: with a sink, a line for a stream only (`<<- #7 GET /export stream ended
    /// (1520.0 ms, 12345 bytes)`; an ordinary call's outcome is its last `<--` line); with a
    /// swift-log logger, the call's one `.debug` line.
    public func didFinish(_ summary: HTTPCallSummary, info: HTTPRequestInfo) {
        switch output {
        case .sink(let sink):
            guard summary.isStream else { return }
            let duration = String(format: "%.1f ms", summary.duration * 1_000)
            let outcome: String
            switch summary.outcome {
            case .success: outcome = "stream ended"
            case .failure(let error): outcome = "stream failed: \(error.code.rawValue)"
            }
            sink("<<- \(info.label) \(info.method) \(redaction.urlString(info.path)) \(outcome) (\(duration), \(summary.bodyBytes ?? 0) bytes)")
        #if Logging
        case .logger(let logger):
            // The URL an attempt was sent to, or the call's own (a cache hit sends nothing): the
            // full URL always, redacted.
            let url = urls.withLock { $0.removeValue(forKey: info.callID) } ?? summary.url.map(redaction.url) ?? redaction.urlString(info.path)
            guard logger.logsCalls else { return }
            let duration = String(format: "%.1f ms", summary.duration * 1_000)
            var metadata = baseMetadata(info, url: url)
            metadata["http.request.id"] = "\(info.callID)"
            metadata.removeValue(forKey: "http.request.attempt")
            metadata["duration_ms"] = String(format: "%.1f", summary.duration * 1_000)
            metadata["http.request.resend_count"] = String(max(0, summary.attempts - 1))
            metadata["http.response.body.size"] = summary.bodyBytes.map(String.init)
            let outcome: String
            switch summary.outcome {
            case .success(let status):
                metadata["http.response.status_code"] = String(status)
                outcome = String(status)
            case .failure(let error):
                metadata["error.type"] = error.code.rawValue
                metadata["http.response.status_code"] = error.statusCode.map(String.init)
                outcome = error.statusCode.map { "\($0) \(error.code.rawValue)" } ?? error.code.rawValue
            }
            let attempts = summary.attempts == 1 ? "1 attempt" : "\(summary.attempts) attempts"
            logger.call("#\(info.callID) \(info.method) \(url): \(outcome) after \(attempts) in \(duration)", metadata)
        #endif
        }
    }

    #if Logging
    /// The metadata every line of `info`'s attempt carries.
    private func baseMetadata(_ info: HTTPRequestInfo, url: String) -> [String: String] {
        ["http.request.id": info.label, "http.request.method": info.method.rawValue, "url.full": url,
         "http.request.attempt": String(info.attempt)]
    }
    #endif

    private func redactedMessage(_ error: HTTPClientError) -> String {
        // Messages name URLs (a refused redirect target): redact them like any URL.
        redaction.urlString(error.message ?? "")
    }

    private func urlText(_ url: URL?) -> String {
        guard let url else { return "<no url>" }
        return redaction.url(url)
    }

    /// Redacted header pairs (`redaction.headers(_:)` of a request's or a response's) as one line.
    private func headerText(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
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
