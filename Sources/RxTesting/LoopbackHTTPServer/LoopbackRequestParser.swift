import Foundation

/// An incremental HTTP/1.x request parser working on bytes: feed it what the socket delivers with
/// `append`, then call `next()` until it asks for more data.
///
/// It parses the request line, header fields (`\r\n`, or a bare `\n`, ends a line), and bodies framed
/// by `Content-Length` or `Transfer-Encoding: chunked` (trailers are read and dropped). Several
/// requests in one buffer (pipelining) come out one per `next()`. Anything malformed yields
/// `.failure` with the status to answer (400, 413, 431, 501 or 505); the parser then stays failed.
///
/// - Note: A value type owned by one connection thread; not shared.
struct LoopbackRequestParser {
    /// What `next()` found.
    enum Event {
        /// The buffer holds no complete request yet.
        case needMoreData
        /// The client sent `Expect: 100-continue` and waits for `100 Continue` before the body.
        case continueExpected
        /// A complete request.
        case request(LoopbackHTTPRequest)
        /// The request is malformed; answer `status` and close the connection.
        case failure(status: Int, reason: String)
    }

    /// The largest request head (request line and headers) accepted.
    static let maxHeadBytes = 64 * 1024
    /// The largest body accepted.
    static let maxBodyBytes = 64 * 1024 * 1024

    private struct Head {
        var method: String
        var target: String
        var version: String
        var headers: LoopbackHTTPHeaders
    }

    private enum Phase {
        case head
        case fixedBody(length: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case failed(status: Int, reason: String)
    }

    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    private let connectionID: Int
    private var buffer: [UInt8] = []
    /// Index of the first byte not consumed yet.
    private var start = 0
    /// Bytes after `start` already searched for a line end.
    private var scanned = 0
    private var phase = Phase.head
    private var head: Head?
    private var body: [UInt8] = []
    private var continuePending = false

    /// Creates a parser for the connection numbered `connectionID` (copied into each request).
    init(connectionID: Int) {
        self.connectionID = connectionID
    }

    /// Whether bytes were received that do not form a complete request yet.
    var hasPartialRequest: Bool {
        if case .head = phase { return start < buffer.count }
        return true
    }

    /// Adds received bytes.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    mutating func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// Parses as far as the buffered bytes allow.
    mutating func next() -> Event {
        while true {
            switch phase {
            case .failed(let status, let reason):
                return .failure(status: status, reason: reason)
            case .head:
                let end = findHeadEnd()
                if (end ?? buffer.count) - start > Self.maxHeadBytes {
                    return fail(431, "request head larger than \(Self.maxHeadBytes) bytes")
                }
                guard let end else {
                    // A method is token bytes: anything else before the first space (a TLS
                    // ClientHello sent to this plain-HTTP server) is answered at once, as nginx
                    // does, not after a head that never comes.
                    if methodIsMalformedSoFar() { return fail(400, "malformed method") }
                    return .needMoreData
                }
                if let failure = parseHead(upTo: end) { return failure }
                if continuePending && start == buffer.count {
                    continuePending = false
                    return .continueExpected
                }
                continuePending = false
            case .fixedBody(let length):
                guard buffer.count - start >= length else { return .needMoreData }
                body = Array(buffer[start..<(start + length)])
                start += length
                return finish()
            case .chunkSize:
                guard let line = readLine() else { return lineShortage() }
                guard let size = Self.parseChunkSize(line) else { return fail(400, "malformed chunk size") }
                if size == 0 {
                    phase = .trailers(bytes: 0)
                } else if size > Self.maxBodyBytes - body.count {
                    return fail(413, "body larger than \(Self.maxBodyBytes) bytes")
                } else {
                    phase = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let available = min(remaining, buffer.count - start)
                guard available > 0 else { return .needMoreData }
                body.append(contentsOf: buffer[start..<(start + available)])
                start += available
                phase = remaining == available ? .chunkDataEnd : .chunkData(remaining: remaining - available)
                compactIfWorthIt()
            case .chunkDataEnd:
                guard let line = readLine() else { return lineShortage() }
                guard line.isEmpty else { return fail(400, "chunk data not followed by CRLF") }
                phase = .chunkSize
            case .trailers(let bytes):
                guard let line = readLine() else { return lineShortage() }
                if line.isEmpty { return finish() }
                let total = bytes + line.count
                guard total <= Self.maxHeadBytes else { return fail(431, "trailers too large") }
                phase = .trailers(bytes: total)
            }
        }
    }

    // MARK: Head

    /// Finds the line feed that ends the head (the first empty line), skipping leading empty lines.
    private mutating func findHeadEnd() -> Int? {
        if scanned == 0 {
            while start < buffer.count && (buffer[start] == Self.cr || buffer[start] == Self.lf) {
                start += 1
            }
        }
        var index = start + scanned
        while index < buffer.count {
            if buffer[index] == Self.lf {
                if index - 1 >= start && buffer[index - 1] == Self.lf { return index }
                if index - 2 >= start && buffer[index - 1] == Self.cr && buffer[index - 2] == Self.lf { return index }
            }
            index += 1
        }
        scanned = buffer.count - start
        return nil
    }

    /// Whether the bytes of an incomplete head already hold a non-token byte before the first space.
    private func methodIsMalformedSoFar() -> Bool {
        var index = start
        while index < buffer.count, buffer[index] == Self.cr || buffer[index] == Self.lf { index += 1 }
        while index < buffer.count, buffer[index] != 0x20 {
            if !Self.isTokenByte(buffer[index]) { return true }
            index += 1
        }
        return false
    }

    /// Parses the head in `start...end`, consumes it and picks the body phase; a failure event if malformed.
    private mutating func parseHead(upTo end: Int) -> Event? {
        var lines = buffer[start..<end].split(separator: Self.lf, omittingEmptySubsequences: false).map { line in
            line.last == Self.cr ? line.dropLast() : line
        }
        start = end + 1
        scanned = 0
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return fail(400, "empty request") }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return fail(400, "malformed request line") }
        guard parts[0].allSatisfy(Self.isTokenByte) else { return fail(400, "malformed method") }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return fail(400, "malformed request target") }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/"), version.utf8.count == 8 else { return fail(400, "malformed HTTP version") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return fail(505, "HTTP version not supported") }
        guard let target = Self.originForm(String(decoding: parts[1], as: UTF8.self)) else {
            return fail(400, "unsupported request target")
        }

        var headers = LoopbackHTTPHeaders()
        for line in lines.dropFirst() {
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
                return fail(400, "obsolete line folding or empty header line")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return fail(400, "header without colon") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else { return fail(400, "malformed header name") }
            let value = Self.trimmed(line[(colon + 1)...])
            guard !value.contains(where: { $0 == 0 || $0 == Self.cr }) else { return fail(400, "malformed header value") }
            headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
        head = Head(method: String(decoding: parts[0], as: UTF8.self), target: target, version: version, headers: headers)
        return chooseBodyPhase(headers)
    }

    private mutating func chooseBodyPhase(_ headers: LoopbackHTTPHeaders) -> Event? {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        var expectsBody = false
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else { return fail(400, "both Transfer-Encoding and Content-Length") }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard codings == ["chunked"] else { return fail(501, "unsupported transfer coding") }
            phase = .chunkSize
            expectsBody = true
        } else if !contentLengths.isEmpty {
            let values = Set(contentLengths.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let length = Int(text)
            else { return fail(400, "malformed Content-Length") }
            guard length <= Self.maxBodyBytes else { return fail(413, "body larger than \(Self.maxBodyBytes) bytes") }
            phase = .fixedBody(length: length)
            expectsBody = length > 0
        } else {
            phase = .fixedBody(length: 0)
        }
        continuePending = expectsBody && headers["Expect"]?.lowercased() == "100-continue"
        return nil
    }

    // MARK: Lines and helpers

    /// Consumes one line (without its CRLF or LF), or returns nil if none is complete.
    private mutating func readLine() -> ArraySlice<UInt8>? {
        var index = start + scanned
        while index < buffer.count {
            if buffer[index] == Self.lf {
                var line = buffer[start..<index]
                if line.last == Self.cr { line = line.dropLast() }
                start = index + 1
                scanned = 0
                return line
            }
            index += 1
        }
        scanned = buffer.count - start
        return nil
    }

    /// `.needMoreData`, unless the unfinished line is already too long to be valid.
    private mutating func lineShortage() -> Event {
        let limit: Int
        switch phase {
        case .chunkDataEnd: limit = 2
        case .chunkSize: limit = 4096
        default: limit = Self.maxHeadBytes
        }
        if buffer.count - start > limit { return fail(400, "line too long in chunked body") }
        return .needMoreData
    }

    private mutating func finish() -> Event {
        guard let head else { return fail(400, "internal parser state") }
        let request = LoopbackHTTPRequest(
            method: LoopbackHTTPMethod(head.method),
            target: head.target,
            version: head.version,
            headers: head.headers,
            body: Data(body),
            connectionID: connectionID
        )
        self.head = nil
        body = []
        phase = .head
        buffer.removeSubrange(0..<start)
        start = 0
        scanned = 0
        return .request(request)
    }

    private mutating func compactIfWorthIt() {
        if start > 65_536 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
            scanned = 0
        }
    }

    private mutating func fail(_ status: Int, _ reason: String) -> Event {
        phase = .failed(status: status, reason: reason)
        return .failure(status: status, reason: reason)
    }

    /// The origin-form target (`/path?query`) of `target`: as is when it starts with `/` or is `*`,
    /// the path of an absolute-form `http://host/path`, nil otherwise.
    private static func originForm(_ target: String) -> String? {
        if target.hasPrefix("/") || target == "*" { return target }
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            let pathAndQuery = String(rest[slash...])
            return pathAndQuery.hasPrefix("?") ? "/" + pathAndQuery : pathAndQuery
        }
        return nil
    }

    private static func parseChunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let sizePart = trimmed(line.prefix { $0 != UInt8(ascii: ";") })
        guard !sizePart.isEmpty, sizePart.count <= 15 else { return nil }
        var size = 0
        for byte in sizePart {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            size = size * 16 + digit
        }
        return size
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return slice
    }

    /// Whether `byte` may appear in a method or header name (RFC 9110 `tchar`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension LoopbackHTTPRequest {
    /// Whether the connection should close after answering this request: `Connection: close`, or
    /// HTTP/1.0 without `Connection: keep-alive`.
    var asksToClose: Bool {
        let tokens = headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return true }
        return version == "HTTP/1.0" && !tokens.contains("keep-alive")
    }
}
