import Foundation
@testable import RxHTTP
import RxTesting
import XCTest

/// A client for `LoopbackHTTPServer`'s WebSocket script, made of the pieces the library's own client
/// will use: the handshake, the frame encoder (masked) and parser (client role), the assembler.
private final class RawWebSocketClient {
    let connection: RawHTTPClient
    private var parser = WebSocketFrameParser(role: .client, maxFrameSize: 1 << 20)
    private var assembler = WebSocketMessageAssembler(maxMessageSize: 1 << 20)
    private(set) var subprotocol: String?

    /// Connects and upgrades; nil if the server refused (with the answer in `refusal`).
    init?(port: UInt16, path: String, protocols: [String] = [], refusal: ((String) -> Void)? = nil) {
        guard let connection = RawHTTPClient(port: port) else { return nil }
        self.connection = connection
        let key = WebSocketHandshake.makeKey()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in WebSocketHandshake.requestHeaders(key: key, protocols: protocols) {
            request += "\(name): \(value)\r\n"
        }
        connection.send(request + "\r\n")
        // Bytes, not a String: frames may follow the head in the same read.
        var received: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil, let bytes = connection.readAvailable(), !bytes.isEmpty {
            received += bytes
            headEnd = (0..<max(0, received.count - 3)).first { received[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers.add(name: String(parts[0]), value: parts[1].trimmingCharacters(in: .whitespaces)) }
        }
        do {
            subprotocol = try WebSocketHandshake.validate(status: status, headers: headers, key: key, protocols: protocols)
        } catch {
            refusal?(head)
            return nil
        }
        parser.append(received[(headEnd + 4)...])
    }

    func send(_ frame: WebSocketFrame) {
        connection.send([UInt8](WebSocketFrameEncoder.encode(frame, mask: WebSocketFrameEncoder.randomMask())))
    }

    func sendText(_ text: String) {
        send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    /// The next message, control frame or close; nil if none came within `timeout` or the
    /// connection closed.
    func next(timeout: TimeInterval = 2) throws -> WebSocketInbound? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let frame = try parser.next() {
                if let inbound = try assembler.receive(frame) { return inbound }
            }
            guard deadline.timeIntervalSinceNow > 0, let bytes = connection.readAvailable(timeout: deadline.timeIntervalSinceNow),
                  !bytes.isEmpty else { return nil }
            parser.append(bytes)
        }
    }
}

/// `LoopbackHTTPServer`'s WebSocket scripts against a client made of the library's codec.
final class LoopbackWebSocketTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = LoopbackHTTPServer()
        try server.start()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private func connect(_ path: String, protocols: [String] = []) throws -> RawWebSocketClient {
        try XCTUnwrap(RawWebSocketClient(port: server.port, path: path, protocols: protocols))
    }

    func testEchoesRecordsAndAnswersTheCloseHandshake() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)], protocol: "chat"))
        let client = try connect("/echo", protocols: ["chat"])
        XCTAssertEqual(client.subprotocol, "chat")
        client.sendText("hello")
        XCTAssertEqual(try client.next(), .text("hello"))
        client.send(WebSocketFrame(opcode: .binary, payload: [1, 2, 3]))
        XCTAssertEqual(try client.next(), .binary(Data([1, 2, 3])))
        client.send(WebSocketFrame(opcode: .ping, payload: [9]))
        XCTAssertEqual(try client.next(), .pong(Data([9])))
        client.send(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]))
        XCTAssertEqual(try client.next(), .close(code: 1000, reason: ""))
        XCTAssertTrue(client.connection.isClosedByServer(within: 2))
        XCTAssertEqual(server.webSocketMessages(at: "/echo"), [.text("hello"), .binary(Data([1, 2, 3]))])
    }

    func testAThousandMessagesInOrderThenAServerCloseWithItsCode() throws {
        server.route(.get, "/feed", .webSocket([.sendMany(count: 1_000, prefix: "m"), .close(code: 4001, reason: "bye")]))
        let client = try connect("/feed")
        for index in 0..<1_000 {
            XCTAssertEqual(try client.next(), .text("m\(index)"))
        }
        XCTAssertEqual(try client.next(), .close(code: 4001, reason: "bye"))
    }

    func testAFragmentedMessageAPingAndAMessageCutByADroppedConnection() throws {
        let frame = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("never whole".utf8)), mask: nil)
        server.route(.get, "/cut", .webSocket([
            .sendFragmented("héllo wörld", fragments: 4), .ping(Data([7])),
            .sendRaw(Data(frame.prefix(5))), .drop,
        ]))
        let client = try connect("/cut")
        XCTAssertEqual(try client.next(), .text("héllo wörld"))
        XCTAssertEqual(try client.next(), .ping(Data([7])))
        XCTAssertNil(try client.next(), "half a frame, then the connection closes")
    }

    func testIgnoringPingsLooksHalfOpen() throws {
        server.route(.get, "/silent", .webSocket([.ignorePings]))
        let client = try connect("/silent")
        client.send(WebSocketFrame(opcode: .ping, payload: []))
        XCTAssertNil(try client.next(timeout: 0.2), "no pong")
    }

    func testAnOversizedOrInvalidClientFrameIsClosedWithItsCode() throws {
        server.route(.get, "/strict", .webSocket([.echo(count: .max)]))
        let client = try connect("/strict")
        client.send(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]))
        XCTAssertEqual(try client.next(), .close(code: 1007, reason: ""))
        let unmasked = try connect("/strict")
        unmasked.connection.send([UInt8](WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: [65]), mask: nil)))
        XCTAssertEqual(try unmasked.next(), .close(code: 1002, reason: ""))
    }

    func testAPlainGETToAWebSocketRouteIsRefused() throws {
        server.route(.get, "/echo", .webSocket([]))
        let connection = try XCTUnwrap(RawHTTPClient(port: server.port))
        connection.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(connection.readToEnd().hasPrefix("HTTP/1.1 400"))
    }
}
