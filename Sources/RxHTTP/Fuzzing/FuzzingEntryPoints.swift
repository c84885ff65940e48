// Compiled only for the fuzzers and benchmarks (`Fuzz/run.sh` and `.ci/run` build them with
// `-D RXNETWORKKIT_TOOLS`): never part of the library an app or a daemon links.
#if RXNETWORKKIT_TOOLS
import Foundation
import RxCore

/// Entry points for the libFuzzer targets in `Fuzz/`: each takes arbitrary bytes and runs one
/// parser or builder the library owns, which must return or throw a typed error, never trap.
///
/// Not API: reachable only through `@_spi(Fuzzing) import RxHTTP`, so the parsers themselves stay
/// internal.
@_spi(Fuzzing)
public enum FuzzingEntryPoints {
    /// Splits `data` (UTF-8, lossy) into a base URL, a path and query parameters at NUL bytes, and
    /// builds the URL; also percent-encodes every piece each way.
    public static func buildURL(_ data: Data) {
        let parts = String(decoding: data, as: UTF8.self).split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        let base = parts.first ?? ""
        let path = parts.count > 1 ? parts[1] : ""
        var parameters: [(String, String)] = []
        var index = 2
        while index + 1 < parts.count {
            parameters.append((parts[index], parts[index + 1]))
            index += 2
        }
        for piece in parts {
            _ = PercentEncoding.encodePath(piece)
            _ = PercentEncoding.encodeQuery(piece)
            _ = PercentEncoding.encodeQueryComponent(piece)
            _ = PercentEncoding.encodePathSegment(piece)
            _ = PercentEncoding.encodeFormComponent(piece)
            _ = URLBuilder.hasDotSegment(piece)
            _ = try? URLBuilder.baseURL(host: piece)
        }
        if let url = URL(string: base), let parsed = try? URLBuilder.Base(url) {
            _ = try? URLBuilder.url(base: parsed, path: path, parameters: parameters)
        }
        _ = try? URLBuilder.url(base: URLBuilder.Base(URL(string: "https://api.example.com/v1")!), path: path, parameters: parameters)
    }

    /// Parses `data` as a `Retry-After` value, both forms.
    public static func parseRetryAfter(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = RetryAfterHeader.seconds(from: text, now: Date(timeIntervalSince1970: 1_700_000_000))
        let error = HTTPClientError(.unacceptableStatusCode, statusCode: 503, headers: ["Retry-After": text])
        _ = RetryPolicy(maxAttempts: 3, delay: .constant(time: 1)).delay(beforeRetry: 1, after: error)
    }

    /// Reads `data` as an outbox file: a record that decodes must encode again and decode to the
    /// same record (whose stored request and outcome must then build).
    public static func decodeOutboxRecord(_ data: Data) {
        guard let record = try? OutboxRecord.decode(data) else { return }
        guard let again = try? OutboxRecord.decode(record.encoded()), again == record else {
            preconditionFailure("an outbox record does not survive encoding again")
        }
        switch record {
        case .entry(let stored):
            _ = OutboxEntry(stored)
            _ = stored.headerFields
            _ = stored.authorizationType
        case .outcome(let outcome):
            _ = outcome.result
        }
    }

    /// Reads `data` as what a download's answers carry — `Content-Range` (206 and 416), `ETag`,
    /// `Last-Modified`, `Content-Length` — and lets a download session judge each line as a head.
    public static func parseTransferHeaders(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = ContentRange(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headers = HTTPHeaders([
            ("Content-Range", lines.first ?? ""), ("ETag", lines.dropFirst().first ?? ""),
            ("Last-Modified", lines.dropFirst(2).first ?? ""), ("Content-Length", lines.dropFirst(3).first ?? ""),
        ])
        _ = DownloadSession.validator(of: headers)
        let session = DownloadSession(
            destination: URL(fileURLWithPath: "/nonexistent-rxnk-fuzz/file"), maxFileSize: 1 << 20, scheduler: ConcurrentDispatchQueueScheduler.background
        )
        for status in [200, 206] {
            _ = session.accept(HTTPResponseHead(statusCode: status, headers: headers, url: nil))
        }
        _ = session.isWholeAfter(HTTPClientError(.unacceptableStatusCode, statusCode: 416, headers: headers))
    }

    /// Reads `data` as the headers a cache and host protection parse — `Cache-Control`, `Expires`,
    /// `Date`, `Last-Modified`, `Age`, `Vary`, the rate-limit headers — judges its freshness, and
    /// decodes it as a disk cache file.
    public static func parseCacheHeaders(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let fields = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        var requestHeaders: [String: String] = [:]
        var headers = HTTPHeaders()
        let names = ["Cache-Control", "Expires", "Date", "Last-Modified", "Age", "Vary", "ETag", "Pragma",
                     "RateLimit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Remaining", "X-RateLimit-Reset"]
        // Past the last name the names start over: a response's repeated fields.
        for (index, field) in fields.prefix(names.count * 2).enumerated() {
            requestHeaders[names[index % names.count]] = field
            headers.add(name: names[index % names.count], value: field)
        }
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        _ = CacheControl(text)
        let requestFields = HTTPHeaders(requestHeaders)
        _ = RequestCacheHeaders(requestFields)
        let stored = CachedResponse(statusCode: 200, headers: headers, body: data, url: nil, requestTime: now, responseTime: now, varyValues: [:])
        let freshness = CacheFreshness(stored, now: now.addingTimeInterval(30))
        _ = freshness.isUsable(for: CacheControl(text))
        _ = freshness.allowsStaleIfError(request: CacheControl(text))
        _ = stored.matches(requestFields)
        _ = stored.updated(with: headers, requestTime: now, responseTime: now)
        _ = RateLimitHeaders.status(in: headers, now: now)
        _ = RateLimitHeaders.parseRateLimitField(text)
        _ = DiskCacheStore.decode(data)
        if let encoded = DiskCacheStore.encode(key: text, variants: [stored]) {
            _ = DiskCacheStore.decode(encoded)
        }
    }

    /// Decodes `data` as a response body: into `JSONValue`, through the default envelope, at a key
    /// path, as text.
    public static func decodeResponse(_ data: Data) {
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: data)
        let plain = ResponseDecodingContext(decoder: JSONDecoder(), envelope: nil)
        let enveloped = ResponseDecodingContext(decoder: JSONDecoder(), envelope: ResponseEnvelope())
        _ = try? DecodableResponseDecoding<JSONValue>().decode(response, context: plain)
        _ = try? DecodableResponseDecoding<JSONValue>().decode(response, context: enveloped)
        _ = try? DecodableResponseDecoding<JSONValue>(keyPath: "data.items.0.name").decode(response, context: plain)
        _ = try? StringResponseDecoding().decode(response, context: plain)
    }

    /// Validates `data` split at NUL bytes as header names and values, and as response framing
    /// headers; redacts it as a URL, a header set and a body.
    public static func validateHeaders(_ data: Data) {
        let parts = String(decoding: data, as: UTF8.self).split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        var headers: [String: String] = [:]
        var lines = HTTPHeaders()
        var index = 0
        while index + 1 < parts.count {
            _ = HeaderValidation.isValidToken(parts[index])
            _ = HeaderValidation.isValidValue(parts[index + 1])
            headers[parts[index]] = parts[index + 1]
            lines.add(name: parts[index], value: parts[index + 1])
            index += 2
        }
        try? HeaderValidation.validate(headers, url: nil)
        _ = try? ResponseFraming.validate(headers: lines, statusCode: 200, method: "GET", url: nil)
        for name in lines.names {
            _ = lines[name]
            _ = lines.values(for: name)
        }
        _ = lines.description
        let redaction = Redaction.standard
        _ = redaction.headers(headers)
        for part in parts {
            _ = redaction.urlString(part)
            _ = redaction.isSensitive(part)
        }
        _ = redaction.body(data, contentType: "application/json", limit: 1_024)
        _ = redaction.body(data, contentType: "application/x-www-form-urlencoded", limit: 1_024)
    }

    /// Builds a multipart body from `data` split at NUL bytes into names, values and file names.
    public static func buildMultipart(_ data: Data) {
        let parts = String(decoding: data, as: UTF8.self).split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        var body: [MultipartFormBody.Part] = []
        var index = 0
        while index + 2 < parts.count {
            body.append(.text(name: parts[index], value: parts[index + 1]))
            body.append(.file(name: parts[index], filename: parts[index + 2], data: Data(parts[index + 1].utf8)))
            index += 3
        }
        _ = try? MultipartFormBody(parts: body, boundary: parts.last ?? "b").encodeBody(using: JSONEncoder())
    }

    /// Decides about a redirect to `data` (as a `Location` value) from an https URL.
    public static func decideRedirect(_ data: Data) {
        let location = String(decoding: data, as: UTF8.self)
        guard let current = URL(string: "https://api.example.com/a/b?c=d") else { return }
        for policy in [RedirectPolicy.follow, .sameOrigin, RedirectPolicy(allowsHTTPSDowngrade: true)] {
            _ = policy.decide(
                location: location, current: current, proposed: HTTPTransportRequest(url: current), hopsSoFar: 0,
                credentialHeaderNames: ["X-Token"]
            )
        }
    }

    /// Parses `data` as a `text/event-stream`, whole and in chunks whose sizes come from the data.
    public static func parseEventStream(_ data: Data) {
        var whole = ServerSentEventParser(maxLineBytes: 4_096, maxEventBytes: 16_384)
        _ = try? whole.feed(data)
        var pieces = ServerSentEventParser(maxLineBytes: 4_096, maxEventBytes: 16_384, lastEventID: "seed")
        var offset = data.startIndex
        while offset < data.endIndex {
            let step = Int(data[offset] % 13) + 1
            let end = data.index(offset, offsetBy: step, limitedBy: data.endIndex) ?? data.endIndex
            guard (try? pieces.feed(data[offset..<end])) != nil else { return }
            offset = end
        }
    }

    /// Parses `data` as JSON Lines into `JSONValue`s, strict and lenient.
    public static func parseJSONLines(_ data: Data) {
        var strict = JSONLinesParser<JSONValue>(maxLineBytes: 4_096, decoder: JSONDecoder(), skipsInvalidLines: false)
        _ = try? strict.feed(data)
        _ = try? strict.finish()
        var lenient = JSONLinesParser<JSONValue>(maxLineBytes: 4_096, decoder: JSONDecoder(), skipsInvalidLines: true)
        var offset = data.startIndex
        while offset < data.endIndex {
            let step = Int(data[offset] % 7) + 1
            let end = data.index(offset, offsetBy: step, limitedBy: data.endIndex) ?? data.endIndex
            guard (try? lenient.feed(data[offset..<end])) != nil else { return }
            offset = end
        }
        _ = try? lenient.finish()
    }
}

extension FuzzingEntryPoints {
    /// Parses `data` as WebSocket frames from both ends (a client reads unmasked frames, a server
    /// masked ones), whole and in pieces whose sizes come from the data, and assembles messages;
    /// every frame re-encoded must parse back to itself.
    public static func parseWebSocketFrames(_ data: Data) {
        let bytes = [UInt8](data)
        for role in [WebSocketFrameParser.Role.client, .server] {
            var whole = WebSocketFrameParser(role: role, maxFrameSize: 4_096)
            var assembler = WebSocketMessageAssembler(maxMessageSize: 8_192)
            whole.append(bytes)
            var wholeFrames: [WebSocketFrame] = []
            while let frame = try? whole.next() {
                wholeFrames.append(frame)
                _ = try? assembler.receive(frame)
                var reparser = WebSocketFrameParser(role: role, maxFrameSize: 4_096)
                reparser.append(WebSocketFrameEncoder.encode(frame, mask: role == .server ? 0xA5A5_5A5A : nil))
                if (try? reparser.next()) != frame {
                    preconditionFailure("a re-encoded frame did not parse back to itself")
                }
            }
            // The same bytes in pieces must give the same frames, up to the same error.
            var pieces = WebSocketFrameParser(role: role, maxFrameSize: 4_096)
            var pieceFrames: [WebSocketFrame] = []
            var offset = 0
            var failed = false
            while offset < bytes.count && !failed {
                let end = min(bytes.count, offset + Int(bytes[offset] % 13) + 1)
                pieces.append(bytes[offset..<end])
                offset = end
                while true {
                    do {
                        guard let frame = try pieces.next() else { break }
                        pieceFrames.append(frame)
                    } catch {
                        failed = true
                        break
                    }
                }
            }
            if pieceFrames != wholeFrames {
                preconditionFailure("bytes in pieces parsed to other frames than the same bytes at once")
            }
        }
        driveWebSocketMachine(bytes)
    }

    /// The socket's machine, open, reads `bytes` from the server in pieces: whatever they hold, a
    /// text message it delivers is whole UTF-8 within the limit, and once it ends nothing more moves it.
    private static func driveWebSocketMachine(_ bytes: [UInt8]) {
        let now = Date(timeIntervalSince1970: 0)
        var machine = WebSocketMachine(
            options: WebSocketOptions(maxMessageSize: 8_192, maxQueuedSends: 4), reconnect: .never, protocols: []
        )
        let started = machine.subscribe(1, AnyObserver { _ in }, now: now)
        guard let (generation, slot) = started.lazy.compactMap({ effect -> (Int, WebSocketUpgradeSlot)? in
            if case .connect(let generation, let slot) = effect { (generation, slot) } else { nil }
        }).first else { preconditionFailure("the first subscriber did not connect") }
        let head = HTTPResponseHead(statusCode: 101, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: slot.key),
        ])
        guard slot.accept(head, connection: DiscardingConnection()) == nil else { preconditionFailure("a valid 101 was refused") }
        _ = machine.upgraded(generation: generation)
        var offset = 0
        var ended = false
        while offset < bytes.count {
            let end = min(bytes.count, offset + Int(bytes[offset] % 17) + 1)
            let effects = machine.received(Data(bytes[offset..<end]), generation: generation, now: now)
            offset = end
            if ended, !effects.isEmpty { preconditionFailure("an ended socket still acted") }
            for effect in effects {
                if case .deliver(.messages(let messages, _)) = effect, messages.contains(where: { $0.byteCount > 8_192 }) {
                    preconditionFailure("a message over the limit was delivered")
                }
                if case .deliver(.end) = effect { ended = true }
            }
        }
    }
}

/// A connection that writes nowhere, for the machine under the fuzzer.
private final class DiscardingConnection: UpgradedConnection {
    func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void) {}
    func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void) {}
    func close() {}
}

/// The stream parsers on their own, for the benchmark that compares them with a whole stream
/// through the client. Not API: only through `@_spi(Fuzzing) import RxHTTP`.
@_spi(Fuzzing)
public enum StreamParsing {
    /// Parses `chunk` `times` times in a row as one event stream; returns the events it completed.
    public static func countEvents(repeating chunk: Data, times: Int) -> Int {
        var parser = ServerSentEventParser(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20)
        var count = 0
        for _ in 0..<max(0, times) {
            guard (try? parser.feed(chunk, emit: { _ in count += 1 })) != nil else { return count }
        }
        return count
    }
}
#endif
