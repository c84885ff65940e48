import Foundation
import RxHTTP

/// Serves one accepted connection on its own thread: reads requests, logs them, asks the router and
/// writes the responses, keeping the connection alive between requests until either side closes it,
/// it idles too long, or the server stops.
///
/// The connection never closes its socket itself: `LoopbackServerRun` does, after `serve()` returns,
/// so that `stop()` never shuts down a descriptor number that was already reused.
///
/// - Note: Used by its own thread only.
struct LoopbackConnection {
    /// How long an idle keep-alive connection stays open.
    static let keepAliveTimeout: TimeInterval = 60
    /// How long a started request may take to arrive completely.
    static let requestTimeout: TimeInterval = 30

    let fd: Int32
    let id: Int
    let wakeFD: Int32
    let router: LoopbackRouter
    let log: LoopbackRequestLog

    /// Runs the request-response loop until the connection is done.
    func serve() {
        let writer = LoopbackResponseWriter(fd: fd, wakeFD: wakeFD)
        var parser = LoopbackRequestParser(connectionID: id)
        var readBuffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch parser.next() {
            case .needMoreData:
                let timeout = parser.hasPartialRequest ? Self.requestTimeout : Self.keepAliveTimeout
                guard LoopbackSocket.wait(for: fd, wakeFD: wakeFD, timeoutMilliseconds: Int32(timeout * 1000))
                    == .readable
                else { return }
                let count = readBuffer.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
                // 0: the client closed (between requests, or mid-request); < 0: reset or shut down.
                guard count > 0 else { return }
                readBuffer.withUnsafeBytes { parser.append(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            case .continueExpected:
                guard writer.sendContinue() else { return }
            case .request(let request):
                log.append(request)
                let response = router.respond(to: request)
                if case .webSocket(let steps, let chosenProtocol) = response.transfer {
                    upgrade(request, to: response, steps: steps, protocol: chosenProtocol, writer: writer)
                    return
                }
                guard writer.send(response, to: request, closeAfterwards: request.asksToClose) else {
                    LoopbackSocket.shutdownWrite(fd)
                    return
                }
            case .failure(let status, let reason):
                writer.sendError(status: status, reason: reason)
                lingeringClose()
                return
            }
        }
    }

    /// Accepts a WebSocket upgrade (RFC 6455 §4.2.2) and runs the script on the connection, which
    /// then serves nothing else; a request that is not an upgrade gets `400`.
    private func upgrade(
        _ request: LoopbackHTTPRequest, to response: LoopbackHTTPResponse, steps: [LoopbackWebSocketStep],
        protocol chosenProtocol: String?, writer: LoopbackResponseWriter
    ) {
        guard request.header("Upgrade")?.lowercased() == "websocket", let key = request.header("Sec-WebSocket-Key") else {
            writer.sendError(status: 400, reason: "not a WebSocket upgrade")
            return
        }
        if response.delay > 0 && !writer.sleep(response.delay) { return }
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n"
        if let chosenProtocol {
            head += "Sec-WebSocket-Protocol: \(chosenProtocol)\r\n"
        }
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        guard writer.write(Data((head + "\r\n").utf8)) else { return }
        var session = LoopbackWebSocketSession(fd: fd, wakeFD: wakeFD, path: request.path, log: log)
        session.run(steps)
    }

    /// Half-closes and reads what the client still sends for a moment, so that closing with unread
    /// bytes does not reset the connection before the client read the error response.
    private func lingeringClose() {
        LoopbackSocket.shutdownWrite(fd)
        var scratch = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(0.5)
        while Date() < deadline {
            guard LoopbackSocket.wait(for: fd, wakeFD: wakeFD, timeoutMilliseconds: 50) == .readable else { return }
            let count = scratch.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
            if count <= 0 { return }
        }
    }
}
