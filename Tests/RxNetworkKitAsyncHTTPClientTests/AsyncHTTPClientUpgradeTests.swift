// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting
import XCTest

/// `AsyncHTTPClientTransport.upgrade(_:options:completion:)` against `LoopbackHTTPServer`'s
/// WebSocket scripts: the 101 hands over a raw byte stream (frames are the test's to encode and
/// parse), any other answer comes back whole, failures carry a truthful phase, and nothing leaks.
final class AsyncHTTPClientUpgradeTests: TransportTestCase {
    private var transport: AsyncHTTPClientTransport!

    override func setUpWithError() throws {
        try super.setUpWithError()
        transport = AsyncHTTPClientTransport()
    }

    override func tearDown() {
        transport.shutdown()
        transport = nil
        super.tearDown()
    }

    // MARK: 101

    func testA101HandsOverTheConnectionAndAnEchoedFrameRoundTrips() throws {
        // given an echoing WebSocket route
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let (request, key) = handshake("/echo?room=1")
        // when the handshake is sent
        let (head, connection) = try XCTUnwrap(switched(upgrade(request)))
        let events = EventLog()
        connection.start(events.record)
        // then the 101 is a valid handshake answer, and the request went out as given
        XCTAssertEqual(head.statusCode, 101)
        XCTAssertNil(try WebSocketHandshake.validate(status: head.statusCode, headers: head.headers, key: key, protocols: []))
        let sent = try XCTUnwrap(server.requests(to: "/echo").first)
        XCTAssertEqual(sent.target, "/echo?room=1")
        XCTAssertEqual(sent.headers.values(for: "Upgrade"), ["websocket"], "no helper added its own Upgrade")
        XCTAssertEqual(sent.headers.values(for: "Connection"), ["Upgrade"], "no helper added its own Connection")
        XCTAssertEqual(sent.headers.values(for: "Host"), ["127.0.0.1:\(server.port)"])
        // and a masked text frame comes back as raw bytes that parse as the same frame
        XCTAssertNil(write(maskedText("hello"), to: connection))
        XCTAssertTrue(events.wait { try Self.frames(in: $0.bytes).count == 1 })
        XCTAssertEqual(try Self.frames(in: events.bytes), [WebSocketFrame(opcode: .text, payload: Array("hello".utf8))])
        XCTAssertEqual(server.webSocketMessages(at: "/echo"), [.text("hello")])
        connection.close()
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
    }

    func testFramesTheServerSendsRightAfterThe101AreNotLost() throws {
        // given a route that speaks first
        server.route(.get, "/greet", .webSocket([.send(.text("first")), .send(.binary(Data([1, 2]))), .echo(count: .max)]))
        // when the connection is started only some time after the answer
        let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/greet").request)))
        Thread.sleep(forTimeInterval: 0.05)
        let events = EventLog()
        connection.start(events.record)
        // then both frames arrive, in order, before anything else
        XCTAssertTrue(events.wait { try Self.frames(in: $0.bytes).count == 2 })
        XCTAssertEqual(try Self.frames(in: events.bytes), [
            WebSocketFrame(opcode: .text, payload: Array("first".utf8)), WebSocketFrame(opcode: .binary, payload: [1, 2]),
        ])
        connection.close()
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
    }

    func testBytesInTheSameWriteAsThe101AreKeptEvenWhenTheServerClosesAtOnce() throws {
        // given a server that writes the 101 and two frames in one write, then closes
        server.route(.get, "/burst") { request in
            let key = request.header("Sec-WebSocket-Key") ?? ""
            var bytes = Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n\r\n").utf8)
            bytes += WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("one".utf8)), mask: nil)
            bytes += WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("two".utf8)), mask: nil)
            return .raw(Data(bytes))
        }
        for round in 0..<20 {
            // when the handshake is answered that way
            let (head, connection) = try XCTUnwrap(switched(upgrade(handshake("/burst").request)), "round \(round)")
            XCTAssertEqual(head.statusCode, 101)
            let events = EventLog()
            connection.start(events.record)
            // then both frames arrive, then one clean close
            XCTAssertTrue(events.wait { $0.closings.count == 1 }, "round \(round)")
            XCTAssertEqual(try Self.frames(in: events.bytes).map(\.payload), [Data("one".utf8), Data("two".utf8)], "round \(round)")
            XCTAssertEqual(events.closings.count, 1)
            XCTAssertNil(events.closings.first ?? nil, "round \(round): the server closed cleanly")
            XCTAssertTrue(events.closedLast)
            connection.close()
        }
    }

    func testADroppedUpgradedConnectionIsClosedExactlyOnce() throws {
        // given a route that sends a frame and drops the TCP connection
        server.route(.get, "/drop", .webSocket([.send(.text("bye")), .drop]))
        let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/drop").request)))
        let events = EventLog()
        connection.start(events.record)
        // then the frame, then one `.closed` (with or without an error), then nothing
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(events.closings.count, 1)
        XCTAssertTrue(events.closedLast)
        XCTAssertEqual(try Self.frames(in: events.bytes), [WebSocketFrame(opcode: .text, payload: Array("bye".utf8))])
        connection.close()
    }

    func testCloseEndsTheConnectionForTheServerAndLaterWritesFail() throws {
        // given an open upgraded connection
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/echo").request)))
        let events = EventLog()
        connection.start(events.record)
        XCTAssertTrue(wait(until: { self.server.openConnectionCount == 1 }))
        // when the client closes it (twice: idempotent)
        connection.close()
        connection.close()
        // then the server sees it end, the client gets one clean `.closed`, and a write fails
        XCTAssertTrue(wait(until: { self.server.openConnectionCount == 0 }))
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
        XCTAssertNil(events.closings.first ?? nil)
        let error = try XCTUnwrap(write(maskedText("late"), to: connection) as? RxHTTP.HTTPClientError)
        XCTAssertEqual(error.code, .transport)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(events.closings.count, 1)
    }

    func testCloseBeforeStartDeliversOnlyTheClose() throws {
        // given a connection whose server already sent a frame
        server.route(.get, "/greet", .webSocket([.send(.text("unread"))]))
        let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/greet").request)))
        Thread.sleep(forTimeInterval: 0.05)
        // when it is closed, then started
        connection.close()
        let events = EventLog()
        connection.start(events.record)
        // then nothing but one clean `.closed` arrives
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(events.snapshot.events.count, 1)
        XCTAssertNil(events.closings.first ?? nil)
    }

    func testWritesArriveInTheOrderTheyWereMade() throws {
        // given an open connection to a recording route
        server.route(.get, "/record", .webSocket([]))
        let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/record").request)))
        connection.start { _ in }
        // when 100 frames are written without waiting, from two threads in turn
        let written = LockedBox(0)
        let queues = [DispatchQueue(label: "a"), DispatchQueue(label: "b")]
        let frames = (0..<100).map { maskedText("m\($0)") }
        for (index, frame) in frames.enumerated() {
            // one after another, but not all from the same thread
            queues[index % 2].sync { connection.write(Data(frame)) { _ in written.mutate { $0 += 1 } } }
        }
        // then the server received them in that order
        let messages = server.waitForWebSocketMessages(count: 100, at: "/record")
        XCTAssertEqual(messages, (0..<100).map { .text("m\($0)") })
        XCTAssertTrue(wait(until: { written.value == 100 }))
        connection.close()
    }

    func testAnIPv6LiteralHostConnectsWithBracketsInTheHostHeader() throws {
        // given a server on [::1] that answers a handshake with a 101 and a frame
        let requestHead = LockedBox<String?>(nil)
        let server6: any Channel
        do {
            server6 = try startNIOServer(host: "::1") { OneShotHandshakeHandler { requestHead.set($0) } }
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        defer { server6.close(promise: nil) }
        let port = try XCTUnwrap(server6.localAddress?.port)
        // when the handshake goes to http://[::1]:port
        var request = HTTPTransportRequest(url: try XCTUnwrap(URL(string: "http://[::1]:\(port)/v6")), timeoutInterval: 5)
        for (name, value) in WebSocketHandshake.requestHeaders(key: WebSocketHandshake.makeKey(), protocols: []) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (_, connection) = try XCTUnwrap(switched(upgrade(request)))
        let events = EventLog()
        connection.start(events.record)
        // then it switched, the Host header has the brackets, and the frame arrives
        XCTAssertTrue(events.wait { try Self.frames(in: $0.bytes).count == 1 })
        XCTAssertEqual(try Self.frames(in: events.bytes).first?.payload, Data("v6".utf8))
        let head = try XCTUnwrap(requestHead.value)
        XCTAssertTrue(head.hasPrefix("GET /v6 HTTP/1.1\r\n"), head)
        XCTAssertTrue(head.contains("\r\nHost: [::1]:\(port)"), head)
        connection.close()
        XCTAssertTrue(events.wait { $0.closings.count == 1 })
    }

    // MARK: Other answers

    func testAnotherStatusIsAnsweredWholeWithRepeatedHeadersJoined() throws {
        // given a route that refuses the upgrade with a body and a repeated header
        server.route(.get, "/private", LoopbackHTTPResponse(
            status: 401, headers: LoopbackHTTPHeaders([("X-Reason", "token"), ("X-Reason", "expired")]), body: Data("who are you".utf8)
        ))
        // when the handshake is sent
        let result = try XCTUnwrap(upgrade(handshake("/private").request))
        // then the whole answer comes back
        guard case .success(.answered(let response)) = result else {
            return XCTFail("expected an answer, got \(result)")
        }
        XCTAssertEqual(response.statusCode, 401)
        XCTAssertEqual(response.body, Data("who are you".utf8))
        XCTAssertEqual(response.value(forHTTPHeaderField: "X-Reason"), "token, expired")
        XCTAssertEqual(response.url, server.url("/private"))
        XCTAssertTrue(wait(until: { self.server.openConnectionCount == 0 }), "the transport closes the connection")
    }

    func testAnAnswerBodyPastTheLimitFailsAsTooLarge() throws {
        let body = String(repeating: "x", count: 1_000)
        let options = HTTPTransportOptions(maxResponseBodySize: 100)
        for (name, response) in [("announced", LoopbackHTTPResponse.text(body, status: 403)),
                                 ("chunked", .text(body, status: 403).chunked(chunkSize: 64))] {
            // given a refusal with a body of 1,000 bytes and a limit of 100
            server.route(.get, "/big", response)
            // when the handshake is sent
            let error = try XCTUnwrap(failure(upgrade(handshake("/big").request, options: options)), name)
            // then it fails as too large, after the response came
            XCTAssertEqual(error.code, .responseTooLarge, name)
            XCTAssertEqual(error.phase, .responded, name)
            XCTAssertEqual(error.statusCode, 403, name)
        }
    }

    // MARK: Failures

    func testARefusedConnectionIsATransportFailureBeforeSending() throws {
        // given a port where nothing listens any more
        let closed = LoopbackHTTPServer()
        try closed.start()
        let port = closed.port
        closed.stop()
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/echo"))
        // when the handshake is sent there
        let error = try XCTUnwrap(failure(upgrade(handshake(url: url).request)))
        // then it failed before anything was sent
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .notSent)
    }

    func testATLSHandshakeFailureIsATransportFailureBeforeSending() throws {
        // given https to a server that answers anything with a plain-text 400 and closes
        let plain = try startNIOServer(host: "127.0.0.1") { GreetingHandler(bytes: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)) }
        defer { plain.close(promise: nil) }
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:\(try XCTUnwrap(plain.localAddress?.port))/echo"))
        // when the handshake is sent
        let error = try XCTUnwrap(failure(upgrade(handshake(url: url).request)))
        // then the TLS handshake failed and the request never went out
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .notSent)
    }

    func testATimeOutDuringTheTLSHandshakeIsBeforeSending() throws {
        // given https to a server that accepts and never answers, and a time-out of 0.2 s
        let silent = try startNIOServer(host: "127.0.0.1") { GreetingHandler(bytes: []) }
        defer { silent.close(promise: nil) }
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:\(try XCTUnwrap(silent.localAddress?.port))/echo"))
        // when the handshake is sent
        let error = try XCTUnwrap(failure(upgrade(handshake(url: url, timeout: 0.2).request)))
        // then it timed out with the request still unsent (it waits for the TLS handshake)
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.phase, .notSent)
    }

    func testAServerThatNeverAnswersTimesOut() throws {
        // given a server that holds its answer for 2 s and a time-out of 0.2 s
        server.route(.get, "/slow", LoopbackHTTPResponse.webSocket([]).delayed(by: 2))
        let started = Date()
        // when the handshake is sent
        let error = try XCTUnwrap(failure(upgrade(handshake("/slow", timeout: 0.2).request)))
        // then it times out after the request went out, and the connection is closed
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.phase, .sentWithoutResponse)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(server.requests(to: "/slow").count, 1)
    }

    func testAConnectionClosedBeforeAnyAnswerWasSentWithoutResponse() throws {
        server.route(.get, "/gone", .dropConnection)
        let error = try XCTUnwrap(failure(upgrade(handshake("/gone").request)))
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .sentWithoutResponse)
    }

    func testAMalformedAnswerIsAnInvalidResponse() throws {
        server.route(.get, "/garbage", .raw("SPDY/9 hello\r\n\r\n"))
        let error = try XCTUnwrap(failure(upgrade(handshake("/garbage").request)))
        XCTAssertEqual(error.code, .invalidResponse)
    }

    func testAnInvalidRequestFailsBeforeAnythingIsSent() throws {
        var badHeader = handshake("/echo").request
        badHeader.setValue("v", forHTTPHeaderField: "Bad Name")
        var badMethod = handshake("/echo").request
        badMethod.httpMethod = "GET /x HTTP/1.1\r\n"
        let badScheme = handshake(url: try XCTUnwrap(URL(string: "ftp://127.0.0.1/echo"))).request
        for request in [badHeader, badMethod, badScheme] {
            let error = try XCTUnwrap(failure(upgrade(request)))
            XCTAssertEqual(error.code, .invalidRequest, "\(error)")
            XCTAssertEqual(error.phase, .notSent)
        }
        XCTAssertTrue(server.requests.isEmpty)
    }

    // MARK: Disposal and resources

    func testDisposingBeforeTheAnswerClosesTheConnectionAndNeverCompletes() throws {
        // given a server that answers after 0.3 s
        server.route(.get, "/late", LoopbackHTTPResponse.webSocket([.send(.text("late"))]).delayed(by: 0.3))
        let calls = LockedBox(0)
        // when the exchange is disposed once the server has the request
        let exchange = transport.upgrade(handshake("/late").request, options: .standard) { _ in calls.mutate { $0 += 1 } }
        XCTAssertEqual(server.waitForRequests(count: 1, timeout: 5).count, 1)
        exchange.dispose()
        // then the completion is never called and the connection ends
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(calls.value, 0)
        XCTAssertTrue(wait(until: { self.server.openConnectionCount == 0 }))
        exchange.dispose()
    }

    func testTwoHundredOpenCloseCyclesLeaveNoDescriptorBehind() throws {
        guard let before = openDescriptorCount() else { throw XCTSkip("no /proc/self/fd") }
        // given an echoing route
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        for round in 0..<200 {
            // when a connection is opened, started and closed
            let (_, connection) = try XCTUnwrap(switched(upgrade(handshake("/echo").request)), "round \(round)")
            let events = EventLog()
            connection.start(events.record)
            connection.close()
            XCTAssertTrue(events.wait { $0.closings.count == 1 }, "round \(round)")
        }
        // then the process holds as many descriptors as before (the server's ends close too)
        XCTAssertTrue(wait(until: { (self.openDescriptorCount() ?? .max) <= before }), "descriptors: \(before) → \(openDescriptorCount() ?? -1)")
    }

    // MARK: Helpers

    /// A handshake request for `path` on the server (or `url`), with a fresh key.
    private func handshake(_ path: String = "/", url: URL? = nil, timeout: TimeInterval = 5) -> (request: HTTPTransportRequest, key: String) {
        let key = WebSocketHandshake.makeKey()
        var request = HTTPTransportRequest(url: url ?? server.url(path), timeoutInterval: timeout)
        for (name, value) in WebSocketHandshake.requestHeaders(key: key, protocols: []) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return (request, key)
    }

    /// Sends `request` and waits for its one result.
    private func upgrade(
        _ request: HTTPTransportRequest, options: HTTPTransportOptions = .standard
    ) -> Result<HTTPUpgradeResult, any Error>? {
        let box = LockedBox<Result<HTTPUpgradeResult, any Error>?>(nil)
        let done = expectation(description: "upgrade answered")
        _ = transport.upgrade(request, options: options) { result in
            box.set(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        return box.value
    }

    private func switched(
        _ result: Result<HTTPUpgradeResult, any Error>?, file: StaticString = #filePath, line: UInt = #line
    ) -> (HTTPResponseHead, any UpgradedConnection)? {
        guard case .success(.switched(let head, let connection)) = result else {
            XCTFail("expected a 101, got \(String(describing: result))", file: file, line: line)
            return nil
        }
        return (head, connection)
    }

    private func failure(
        _ result: Result<HTTPUpgradeResult, any Error>?, file: StaticString = #filePath, line: UInt = #line
    ) -> RxHTTP.HTTPClientError? {
        guard case .failure(let error) = result else {
            XCTFail("expected a failure, got \(String(describing: result))", file: file, line: line)
            return nil
        }
        guard let error = error as? RxHTTP.HTTPClientError else {
            XCTFail("expected an HTTPClientError, got \(error)", file: file, line: line)
            return nil
        }
        return error
    }

    /// Writes `bytes` and waits for the completion's error (nil once written).
    private func write(_ bytes: [UInt8], to connection: any UpgradedConnection) -> (any Error)? {
        let box = LockedBox<(any Error)?>(nil)
        let done = expectation(description: "written")
        connection.write(Data(bytes)) { error in
            box.set(error)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        return box.value
    }

    private func maskedText(_ text: String) -> [UInt8] {
        [UInt8](WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array(text.utf8)), mask: WebSocketFrameEncoder.randomMask()))
    }

    /// The whole frames in `bytes`, as a client reads them.
    private static func frames(in bytes: [UInt8]) throws -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(role: .client, maxFrameSize: 1 << 20)
        parser.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try parser.next() {
            frames.append(frame)
        }
        return frames
    }

    /// Polls `condition` every millisecond for up to 5 s.
    private func wait(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// A NIO server on `host` (any free port) whose connections each get a handler from `make`.
    private func startNIOServer(
        host: String, _ make: @escaping @Sendable () -> any ChannelHandler & RemovableChannelHandler
    ) throws -> any Channel {
        try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(make()) }
            }
            .bind(host: host, port: 0).wait()
    }

    private func openDescriptorCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
    }
}

/// What an upgraded connection delivered, in order.
private final class EventLog: Sendable {
    struct Snapshot {
        let events: [UpgradedConnectionEvent]

        /// Every byte received, in order.
        var bytes: [UInt8] {
            events.flatMap { event -> [UInt8] in
                if case .bytes(let data) = event { return Array(data) }
                return []
            }
        }

        /// The errors of the `.closed` events (nil for a clean close).
        var closings: [(any Error)?] {
            events.compactMap { event -> (any Error)?? in
                if case .closed(let error) = event { return .some(error) }
                return nil
            }
        }
    }

    private let storage = LockedBox<[UpgradedConnectionEvent]>([])

    var snapshot: Snapshot { Snapshot(events: storage.value) }
    var bytes: [UInt8] { snapshot.bytes }
    var closings: [(any Error)?] { snapshot.closings }
    /// Whether nothing came after the first `.closed`.
    var closedLast: Bool {
        let events = storage.value
        guard let index = events.firstIndex(where: { if case .closed = $0 { true } else { false } }) else { return true }
        return index == events.count - 1
    }

    @Sendable func record(_ event: UpgradedConnectionEvent) {
        storage.mutate { $0.append(event) }
    }

    /// Polls until `condition` holds (a throwing condition counts as false) or 5 s pass.
    func wait(_ condition: (Snapshot) throws -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !((try? condition(snapshot)) ?? false) {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }
}

/// Writes `bytes` as soon as the connection is accepted (nothing when empty, and then stays silent),
/// and closes it after writing.
private final class GreetingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func channelActive(context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// Answers the first request head of a connection with a WebSocket 101 and a text frame "v6" in
/// one write, after handing the head to `onRequest`.
private final class OneShotHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let onRequest: @Sendable (String) -> Void
    private var received = ""
    private var answered = false

    init(onRequest: @escaping @Sendable (String) -> Void) {
        self.onRequest = onRequest
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        received += buffer.readString(length: buffer.readableBytes) ?? ""
        guard !answered, let end = received.range(of: "\r\n\r\n") else { return }
        answered = true
        let head = String(received[..<end.lowerBound])
        onRequest(head)
        let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        let key = keyLine.map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        var bytes = Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n\r\n").utf8)
        bytes += WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("v6".utf8)), mask: nil)
        context.writeAndFlush(Self.wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }
}
#endif
