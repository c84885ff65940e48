import Foundation

/// Puts a `LoopbackHTTPResponse` on a connection as its script says: delay, framing, chunking,
/// trickling, cutting the connection short. Every sleep ends early when the server stops.
///
/// - Note: Used by one connection thread at a time.
struct LoopbackResponseWriter {
    /// The connection's socket.
    let fd: Int32
    /// The read end of the server's wake pipe: readable once the server stops.
    let wakeFD: Int32

    /// Sends `response` to `request` (nil for an answer to a malformed request).
    ///
    /// - Parameters:
    ///   - response: The scripted response.
    ///   - request: The request being answered; decides HEAD handling and HTTP/1.0 keep-alive.
    ///   - closeAfterwards: Whether the connection closes after this response in any case.
    /// - Returns: Whether the connection may carry another request.
    func send(_ response: LoopbackHTTPResponse, to request: LoopbackHTTPRequest?, closeAfterwards: Bool) -> Bool {
        if response.delay > 0 && !sleep(response.delay) { return false }
        if response.ending == .closeBeforeResponse { return false }
        if response.transfer == .raw {
            _ = write(response.body)
            return false
        }

        let bodyAllowed = !(100..<200).contains(response.status) && response.status != 204 && response.status != 304
        var isChunked = false
        var isStream = false
        switch response.transfer {
        case .chunked where bodyAllowed: isChunked = true
        case .stream(_, let chunked) where bodyAllowed:
            isChunked = chunked
            isStream = true
        default: break
        }
        let connectionTokens = response.headers.values(for: "Connection").map { $0.lowercased() }
        let closes = closeAfterwards || response.ending != .complete || isStream
            || connectionTokens.contains { $0.contains("close") }

        var headers = response.headers
        let userFramed = headers.contains("Content-Length") || headers.contains("Transfer-Encoding")
        if bodyAllowed && !userFramed && !(isStream && !isChunked) {
            if isChunked {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.add(name: "Content-Length", value: String(response.body.count))
            }
        }
        if !headers.contains("Connection") {
            if closes {
                headers.add(name: "Connection", value: "close")
            } else if request?.version == "HTTP/1.0" {
                headers.add(name: "Connection", value: "keep-alive")
            }
        }

        var head = "HTTP/1.1 \(response.status) \(response.reason ?? Self.reasonPhrase(response.status))\r\n"
        for field in headers { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        guard write(Data(head.utf8)) else { return false }

        let sendsBody = bodyAllowed && request?.method != .head
        if sendsBody {
            var limit = response.body.count
            if case .closeAfterBodyBytes(let count) = response.ending { limit = min(count, limit) }
            let completed: Bool
            switch response.transfer {
            case .chunked(let chunkSize, let delay):
                completed = writeChunked(
                    response.body, chunkSize: chunkSize, delay: delay, limit: limit,
                    terminate: response.ending == .complete
                )
            case .trickle(let delay):
                completed = writeTrickle(response.body.prefix(limit), delay: delay)
            case .stream(let steps, let chunked):
                completed = writeStream(steps, chunked: chunked)
            case .contentLength, .raw, .webSocket:
                completed = write(response.body.prefix(limit))
            }
            guard completed else { return false }
        }
        return !closes
    }

    /// Sends a short plain-text answer to a request that could not be parsed.
    func sendError(status: Int, reason: String) {
        let response = LoopbackHTTPResponse.text(reason + "\n", status: status)
        _ = send(response, to: nil, closeAfterwards: true)
    }

    /// Sends `100 Continue`; false if the peer is gone.
    func sendContinue() -> Bool {
        write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// Sleeps `seconds`; false if the server stopped meanwhile.
    func sleep(_ seconds: TimeInterval) -> Bool {
        let milliseconds = Int32(clamping: Int((seconds * 1000).rounded(.up)))
        return LoopbackSocket.wait(for: -1, wakeFD: wakeFD, timeoutMilliseconds: milliseconds) == .timedOut
    }

    /// Writes all of `data`; false if the peer is gone.
    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { LoopbackSocket.sendAll(fd, $0) }
    }

    /// Writes `body` in chunks; stops after `limit` payload bytes, and sends the last chunk only if
    /// `terminate` and the whole body went out.
    private func writeChunked(_ body: Data, chunkSize: Int, delay: TimeInterval, limit: Int, terminate: Bool) -> Bool {
        var offset = 0
        while offset < body.count {
            let allowed = limit - offset
            if allowed <= 0 { return false }
            if offset > 0 && delay > 0 && !sleep(delay) { return false }
            let end = min(offset + chunkSize, body.count)
            let chunk = body[(body.startIndex + offset)..<(body.startIndex + end)]
            var frame = Data(String(chunk.count, radix: 16).utf8)
            frame.append(contentsOf: Array("\r\n".utf8))
            if chunk.count > allowed {
                frame.append(chunk.prefix(allowed))
                _ = write(frame)
                return false
            }
            frame.append(chunk)
            frame.append(contentsOf: Array("\r\n".utf8))
            guard write(frame) else { return false }
            offset = end
        }
        guard terminate else { return false }
        if !body.isEmpty && delay > 0 && !sleep(delay) { return false }
        return write(Data("0\r\n\r\n".utf8))
    }

    /// Runs a stream's steps; false if the peer is gone or the script dropped the connection.
    private func writeStream(_ steps: [LoopbackStreamStep], chunked: Bool) -> Bool {
        func emit(_ bytes: Data) -> Bool {
            guard !bytes.isEmpty else { return true }
            guard chunked else { return write(bytes) }
            var frame = Data(String(bytes.count, radix: 16).utf8)
            frame.append(contentsOf: Array("\r\n".utf8))
            frame.append(bytes)
            frame.append(contentsOf: Array("\r\n".utf8))
            return write(frame)
        }
        for step in steps {
            switch step {
            case .write(let bytes):
                guard emit(bytes) else { return false }
            case .repeatWrite(let bytes, let times):
                for _ in 0..<max(0, times) {
                    guard emit(bytes) else { return false }
                }
            case .pause(let seconds):
                guard sleep(seconds) else { return false }
            case .drop:
                return false
            }
        }
        return chunked ? write(Data("0\r\n\r\n".utf8)) : true
    }

    private func writeTrickle(_ bytes: Data, delay: TimeInterval) -> Bool {
        for index in bytes.indices {
            if index > bytes.startIndex && delay > 0 && !sleep(delay) { return false }
            guard write(bytes[index...index]) else { return false }
        }
        return true
    }

    /// The standard reason phrase for `status`.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}
