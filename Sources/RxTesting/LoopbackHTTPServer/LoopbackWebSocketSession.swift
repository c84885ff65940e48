import Foundation
import RxHTTP

/// Runs one WebSocket connection of `LoopbackHTTPServer` after the upgrade: the script's steps, and
/// all along the reading side (messages recorded, pings answered, the close handshake).
///
/// - Note: Used by its connection's thread only.
struct LoopbackWebSocketSession {
    /// The largest frame or message the server accepts from a client.
    static let maxMessageSize = 16 << 20

    let fd: Int32
    let wakeFD: Int32
    let path: String
    let log: LoopbackRequestLog
    private var parser = WebSocketFrameParser(role: .server, maxFrameSize: maxMessageSize)
    private var assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize)
    private var answersPings = true
    /// Messages still to send back (`echo`).
    private var echoesLeft = 0
    private var isOver = false
    /// One read's bytes; kept across reads (a session reads thousands of times).
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    init(fd: Int32, wakeFD: Int32, path: String, log: LoopbackRequestLog) {
        self.fd = fd
        self.wakeFD = wakeFD
        self.path = path
        self.log = log
    }

    /// Runs `steps`, then keeps serving until the client closes, the connection fails or the server
    /// stops.
    mutating func run(_ steps: [LoopbackWebSocketStep]) {
        for step in steps where !isOver {
            perform(step)
        }
        while !isOver {
            serveIncoming(for: LoopbackConnection.keepAliveTimeout)
        }
    }

    private mutating func perform(_ step: LoopbackWebSocketStep) {
        switch step {
        case .send(.text(let text)):
            send(WebSocketFrame(opcode: .text, payload: Data(text.utf8)))
        case .send(.binary(let data)):
            send(WebSocketFrame(opcode: .binary, payload: data))
        case .sendFragmented(let text, let fragments):
            let bytes = Array(text.utf8)
            let size = max(1, (bytes.count + max(1, fragments) - 1) / max(1, fragments))
            var offset = 0
            repeat {
                let end = min(bytes.count, offset + size)
                send(WebSocketFrame(isFinal: end == bytes.count, opcode: offset == 0 ? .text : .continuation,
                                    payload: Data(bytes[offset..<end])))
                offset = end
            } while offset < bytes.count && !isOver
        case .sendMany(let count, let prefix):
            for index in 0..<max(0, count) where !isOver {
                send(WebSocketFrame(opcode: .text, payload: Data("\(prefix)\(index)".utf8)))
            }
        case .sendRaw(let data):
            write(data)
        case .echo(let count):
            echoesLeft = max(0, count)
            while echoesLeft > 0 && !isOver {
                serveIncoming(for: LoopbackConnection.keepAliveTimeout)
            }
        case .ping(let data):
            send(WebSocketFrame(opcode: .ping, payload: Data(data.prefix(WebSocketFrame.maxControlPayload))))
        case .pause(let seconds):
            let deadline = Date().addingTimeInterval(seconds)
            while !isOver, case let left = deadline.timeIntervalSinceNow, left > 0 {
                serveIncoming(for: left)
            }
        case .ignorePings:
            answersPings = false
        case .close(let code, let reason):
            sendClose(code: code, reason: reason)
            let deadline = Date().addingTimeInterval(1)
            while !isOver, case let left = deadline.timeIntervalSinceNow, left > 0 {
                serveIncoming(for: left)
            }
            isOver = true
        case .drop:
            isOver = true
        }
    }

    /// Reads what arrives within `seconds` and handles every whole frame.
    private mutating func serveIncoming(for seconds: TimeInterval) {
        let milliseconds = Int32(clamping: Int((seconds * 1000).rounded(.up)))
        switch LoopbackSocket.wait(for: fd, wakeFD: wakeFD, timeoutMilliseconds: max(1, milliseconds)) {
        case .timedOut: return
        case .woken:
            isOver = true // the server stops
            return
        case .readable: break
        }
        let count = readBuffer.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
        guard count > 0 else {
            isOver = true // the client closed the TCP connection (0), or it was reset
            return
        }
        parser.append(readBuffer[0..<count])
        do {
            while !isOver, let frame = try parser.next() {
                guard let inbound = try assembler.receive(frame) else { continue }
                handle(inbound)
            }
        } catch {
            sendClose(code: error.closeCode, reason: "")
            isOver = true
        }
    }

    private mutating func handle(_ inbound: WebSocketInbound) {
        switch inbound {
        case .text(let text):
            received(.text(text), frame: WebSocketFrame(opcode: .text, payload: Data(text.utf8)))
        case .binary(let bytes):
            received(.binary(bytes), frame: WebSocketFrame(opcode: .binary, payload: bytes))
        case .ping(let payload):
            if answersPings {
                send(WebSocketFrame(opcode: .pong, payload: payload))
            }
        case .pong:
            break
        case .close(let code, _):
            // The client began the close handshake (or answered ours): answer it and end.
            sendClose(code: code ?? 1000, reason: "")
            isOver = true
        }
    }

    private mutating func received(_ message: LoopbackWebSocketMessage, frame: WebSocketFrame) {
        log.appendWebSocketMessage(message, path: path)
        if echoesLeft > 0 {
            echoesLeft -= 1
            send(frame)
        }
    }

    private mutating func sendClose(code: UInt16, reason: String) {
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(WebSocketFrame.maxControlPayload - 2))
        send(WebSocketFrame(opcode: .close, payload: Data(payload)))
    }

    private mutating func send(_ frame: WebSocketFrame) {
        write(WebSocketFrameEncoder.encode(frame, mask: nil))
    }

    private mutating func write(_ bytes: some ContiguousBytes) {
        if !bytes.withUnsafeBytes({ LoopbackSocket.sendAll(fd, $0) }) {
            isOver = true
        }
    }
}
