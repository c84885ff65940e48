import Foundation

/// Every failure of an `HTTPClient` request: what went wrong (`code`), how far the request got
/// (`phase`), and whatever is known about it.
///
/// Bad input never crashes or hangs a request; it ends in one of these:
/// - `.invalidRequest`: the request could not be built (bad base URL or path, a `.`/`..` path
///   segment, a header name or value with CR, LF or another forbidden byte, a parameter that cannot
///   be sent — NaN, a closure, an object —, parameters nested deeper than 64 levels, a body that
///   could not be encoded, a time-out that is NaN or not positive). Nothing was sent.
/// - `.unacceptableStatusCode`: the server answered with a status outside the acceptable ones;
///   `statusCode` and `body` hold the answer.
/// - `.decodeError`: the answer could not be turned into the expected type (malformed JSON, HTML,
///   non-UTF-8 text, an empty body or a 204 where a model was expected, a wrong shape). The
///   description names the coding path.
/// - `.envelopeFailure`: the response envelope reported failure (`message` holds its message).
/// - `.invalidResponse`: the server's answer broke HTTP: a garbage or HTTP/0.9 status line,
///   conflicting or unparsable `Content-Length`, `Content-Length` with `Transfer-Encoding`, a body
///   shorter than announced. The request was sent; the connection is not reused.
/// - `.responseTooLarge`: the (decoded) body passed the configured maximum; the exchange was cut off.
/// - `.redirectRefused`: a redirect was not followed under the redirect policy (a scheme other than
///   http/https, an https → http downgrade, another origin under `.sameOrigin`, too many hops).
/// - `.transport`: the connection failed (refused, reset, DNS); `underlying` is the system error,
///   with any URL in it redacted.
/// - `.timedOut`: the request took longer than its time-out.
/// - `.cancelled`: the request was cancelled.
/// - `.shutdown`: the client is shutting down (`HTTPClient.shutdown(gracePeriod:)`): refused before
///   sending, stopped while waiting to retry, or cancelled at the end of the grace period.
/// - `.refreshFailed`: refreshing credentials failed: the server rejected the refresh, the store
///   cannot be read, no credential, or too many refreshes.
/// - `.circuitOpen`, `.rejected`: the host's circuit breaker is open, or its queue is full; nothing
///   was sent. `.retryBudgetExhausted`: the host's retry budget could not pay for a retry
///   (`underlying` is the last failure). `retryAfter(now:)` says when to try again, if known.
/// - `.bufferOverflow`: a streamed response's reader fell further behind than the stream's buffer.
/// - `.notCached`: a request with `CachePolicy.onlyIfCached` found nothing stored; nothing was sent.
/// - `.unsupported`: the transport cannot do what was asked (a WebSocket); nothing was sent.
/// - `.webSocketClosed`: the server closed a WebSocket for good (`webSocketCloseCode`).
///
/// - Note: A value type; `Sendable`. Its description never contains a secret: URLs are redacted
///   (query parameters named like tokens, passwords, keys, signatures…), headers are not printed,
///   a text body shows as a short excerpt with its sensitive fields redacted (`BodyExcerpt`), and
///   the system errors it wraps are rebuilt with redacted URLs.
public struct HTTPClientError: Error, CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The response could not be decoded into the expected type.
        case decodeError
        /// The status code is not among the acceptable ones.
        case unacceptableStatusCode
        /// The connection failed: refused, reset, unreachable host, TLS error.
        case transport
        /// The request did not finish within its timeout.
        case timedOut
        /// The request was cancelled before it finished.
        case cancelled
        /// The request could not be built; nothing was sent.
        case invalidRequest
        /// Refreshing the credentials failed.
        case refreshFailed
        /// The response envelope (`{status, message, data}`) reported a failure.
        case envelopeFailure
        /// The server's answer broke HTTP framing or syntax.
        case invalidResponse
        /// The response body passed the configured maximum size.
        case responseTooLarge
        /// A redirect was refused by the redirect policy.
        case redirectRefused
        /// The client is shutting down.
        case shutdown
        /// The host's circuit breaker is open: the request was not sent (`retryAfter(now:)` says
        /// when the breaker will try again).
        case circuitOpen
        /// The host's retry budget could not pay for a retry; `underlying` is the last failure.
        case retryBudgetExhausted
        /// The host's queue of waiting requests is full: the request was not sent.
        case rejected
        /// A streamed response's reader fell further behind than the stream's buffer holds.
        case bufferOverflow
        /// A request that may use only the cache (`CachePolicy.onlyIfCached`) found nothing stored.
        case notCached
        /// The transport cannot do what was asked (a WebSocket on a transport without it); the
        /// message says why. Nothing was sent.
        case unsupported
        /// The server closed a WebSocket with a code that ends it for good (`webSocketCloseCode`;
        /// `message` holds its reason).
        case webSocketClosed
        /// Reading or writing a local file failed: a download's destination (no such directory, disk
        /// full, larger than `TransferOptions.maxFileSize`), an upload's source, an `Outbox`'s
        /// directory (or a fleet's outbox table); `underlying` holds the system's error.
        case fileSystem
    }

    /// How far a request got before it failed: what decides whether repeating it is safe.
    public enum Phase: String, Hashable, Sendable, CaseIterable {
        /// Nothing reached the server: the request could not be built, the connection was refused,
        /// the host name did not resolve, the client refused it. Safe to repeat for any method.
        case notSent
        /// The request went out (or may have), and no complete answer came back: a time-out, a
        /// connection dropped after sending, a garbage answer. The server may have acted on it.
        case sentWithoutResponse
        /// The server answered with a status (`statusCode` holds it).
        case responded
    }

    /// What kind of failure this is.
    public internal(set) var code: Code
    /// The response's status code, when a response arrived.
    public internal(set) var statusCode: Int?
    /// The response's body, when a response arrived.
    public internal(set) var body: Data?
    /// The error this one wraps: a system networking error (its URLs redacted), a `DecodingError`,
    /// an `EncodingError`, or for `.shutdown` the failure that would otherwise have been retried.
    public internal(set) var underlying: Error?
    /// A human-readable explanation (for an envelope failure, the server's message).
    public internal(set) var message: String?
    /// The URL of the request, when it was built. It is the real URL, secrets included: print the
    /// error (its `description` redacts it), not this property.
    public internal(set) var url: URL?
    /// The response's headers, when a response arrived (held in memory only; never logged).
    public internal(set) var headers: HTTPHeaders?
    /// How far the request got; see `Phase`.
    public internal(set) var phase: Phase
    /// The close code of the WebSocket this error ended: the server's (`.webSocketClosed`), or the
    /// one the client sent for what the server did (1002 a broken protocol, 1007 text that is not
    /// UTF-8, 1008 a subscriber too slow, 1009 a message too big); nil for other errors.
    public internal(set) var webSocketCloseCode: WebSocketCloseCode?
    /// How many times the call sent its request (the attempts of its retry policy, and any replay);
    /// 0 when nothing was sent. Set by the client on the error it delivers.
    public internal(set) var attempts: Int
    /// Whether the client's own retry policy (one that allows retries) already judged this failure
    /// and stopped: attempts used up, deadline, shutdown, or a failure it must not repeat. Then
    /// `isTransient` is false, so that an outer `retry(..., shouldRetry: { $0.isTransient })` does
    /// not multiply the client's attempts.
    public internal(set) var decidedByRetryPolicy: Bool

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A human-readable explanation.
    ///   - statusCode: The response's status code, if a response arrived.
    ///   - body: The response's body, if a response arrived.
    ///   - url: The request's URL.
    ///   - underlying: The wrapped error.
    ///   - headers: The response's headers, if a response arrived.
    ///   - phase: How far the request got; nil derives it: `.responded` with a status code,
    ///     `.notSent` for `.invalidRequest`, `.shutdown` and `.cancelled`, otherwise
    ///     `.sentWithoutResponse` (the safe assumption: the server may have seen it).
    public init(
        _ code: Code,
        message: String? = nil,
        statusCode: Int? = nil,
        body: Data? = nil,
        url: URL? = nil,
        underlying: Error? = nil,
        headers: HTTPHeaders? = nil,
        phase: Phase? = nil
    ) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.body = body
        self.url = url
        self.underlying = underlying
        self.headers = headers
        self.phase = phase ?? Self.derivedPhase(code: code, statusCode: statusCode)
        self.attempts = 0
        self.decidedByRetryPolicy = false
    }

    /// Creates an error whose response headers are a dictionary (one line per name); see
    /// `init(_:message:statusCode:body:url:underlying:headers:phase:)`.
    public init(
        _ code: Code,
        message: String? = nil,
        statusCode: Int? = nil,
        body: Data? = nil,
        url: URL? = nil,
        underlying: Error? = nil,
        headers: [String: String]?,
        phase: Phase? = nil
    ) {
        self.init(
            code, message: message, statusCode: statusCode, body: body, url: url, underlying: underlying,
            headers: headers.map(HTTPHeaders.init), phase: phase)
    }

    private static func derivedPhase(code: Code, statusCode: Int?) -> Phase {
        if statusCode != nil { return .responded }
        switch code {
        case .invalidRequest, .shutdown, .cancelled, .circuitOpen, .rejected, .notCached, .unsupported, .fileSystem:
            return .notSent
        case .decodeError, .unacceptableStatusCode, .transport, .timedOut, .refreshFailed, .envelopeFailure,
             .invalidResponse, .responseTooLarge, .redirectRefused, .retryBudgetExhausted, .bufferOverflow, .webSocketClosed:
            return .sentWithoutResponse
        }
    }

    /// How long to wait before trying again, in seconds from `now`: for `.circuitOpen` (and a
    /// cooldown refusal) the time until the client itself will try the host again; otherwise the
    /// `Retry-After` header of the response (delay-seconds or an HTTP date). Nil when unknown; never
    /// negative.
    public func retryAfter(now: Date = Date()) -> TimeInterval? {
        if let suggestedRetryAfter { return suggestedRetryAfter }
        guard let value = headers?["Retry-After"] else { return nil }
        return RetryAfterHeader.seconds(from: value, now: now)
    }

    /// The wait the client computed (an open circuit, a cooldown), which `retryAfter(now:)` returns.
    var suggestedRetryAfter: TimeInterval?

    /// Whether trying again later may succeed: connection failures, time-outs, garbage answers,
    /// and the statuses 408 (Request Timeout), 429 (Too Many Requests) and 5xx — unless the client's
    /// own retry policy already decided on this failure (`decidedByRetryPolicy`), so that stacking
    /// `retry(..., shouldRetry: { $0.isTransient })` on a client that retries does not multiply
    /// attempts.
    ///
    /// It does not know whether repeating the request is safe: `isRetryable` adds that.
    public var isTransient: Bool {
        !decidedByRetryPolicy && isTransientFailure
    }

    /// Whether the failure is of a kind that may pass, whoever decided about it.
    var isTransientFailure: Bool {
        switch code {
        case .transport, .timedOut, .invalidResponse:
            return true
        case .unacceptableStatusCode:
            guard let statusCode else { return false }
            return statusCode == 408 || statusCode == 429 || (500...599).contains(statusCode)
        case .decodeError, .cancelled, .invalidRequest, .refreshFailed, .envelopeFailure,
             .responseTooLarge, .redirectRefused, .shutdown, .bufferOverflow, .notCached, .unsupported, .webSocketClosed,
             .fileSystem:
            return false
        case .circuitOpen, .retryBudgetExhausted, .rejected:
            // Protective refusals: retrying them at once is what they exist to prevent.
            return false
        }
    }

    /// Whether a long-lived connection (an event stream, a WebSocket) should wait and connect again
    /// after this failure: a transient failure, or one of the client's own protective refusals
    /// (`.circuitOpen`, `.rejected`, `.retryBudgetExhausted`) — those say "not now", and a stream
    /// that ended for good on them would never come back after the host recovered. The wait is the
    /// reconnect policy's, at least `retryAfter(now:)`.
    var isWorthReconnecting: Bool {
        switch code {
        case .circuitOpen, .retryBudgetExhausted, .rejected:
            return true
        default:
            return isTransientFailure
        }
    }

    /// Whether repeating the request is both worth it and safe, by the rule the client's own retries
    /// follow: `isTransient`, and either nothing was sent (`phase == .notSent`) or the request is
    /// idempotent — by its method (GET, HEAD, PUT, DELETE, OPTIONS, TRACE) or as declared, or
    /// `.keyed` with an `Idempotency-Key`. The client records the request's idempotency on the errors
    /// it delivers; an error built by hand counts as not idempotent once sent.
    ///
    /// The predicate to give an outer retry: `retry(3, delay: ..., shouldRetry: { ($0 as?
    /// HTTPClientError)?.isRetryable ?? false })`.
    public var isRetryable: Bool {
        isTransient && (phase == .notSent || isSafeToRepeat)
    }

    /// Whether the request that failed may be sent again after reaching the server; set by the client.
    var isSafeToRepeat = false

    /// A one-line description: the code, the status, the message, the URL (secrets redacted) and
    /// the underlying error; decoding errors name their coding path.
    public var description: String {
        var parts = ["HTTPClientError.\(code.rawValue)"]
        if let statusCode {
            parts.append("HTTP \(statusCode)")
        } else {
            parts.append(phase == .notSent ? "not sent" : "sent, no response")
        }
        if let message, !message.isEmpty {
            parts.append(message)
        }
        if let url {
            parts.append("url: \(Redaction.standard.url(url))")
        }
        if let body {
            parts.append("body: " + BodyExcerpt.describe(body, contentType: headers?["Content-Type"]))
        }
        if attempts > 1 {
            parts.append("after \(attempts) attempts")
        }
        if let underlying {
            parts.append("underlying: \(Self.describe(underlying))")
        }
        return parts.joined(separator: "; ")
    }

    /// The same redacted text as `description`: a secret never appears in a debugger either.
    public var debugDescription: String {
        description
    }

    /// The redacted description, for `localizedDescription`.
    public var errorDescription: String? {
        description
    }

    /// Describes a `DecodingError` with its coding path; other errors as they describe themselves.
    static func describe(_ error: Error) -> String {
        if let decodingError = error as? DecodingError {
            return DecodingErrorDescription.describe(decodingError)
        }
        if let encodingError = error as? EncodingError,
           case .invalidValue(let value, let context) = encodingError {
            let path = DecodingErrorDescription.path(context.codingPath)
            return "cannot encode \(type(of: value)) at \(path): \(context.debugDescription)"
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            return "\(nsError.domain) \(nsError.code) (\(nsError.localizedDescription))"
        }
        return String(describing: error)
    }
}
