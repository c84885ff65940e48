// Compiled with the package trait `AsyncHTTPClient` only.
#if AsyncHTTPClient
import Foundation
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting
import XCTest

/// `client.webSocket` end to end: the client's pipeline, AsyncHTTPClientTransport's upgrade, and a
/// real WebSocket server (`LoopbackHTTPServer`'s WebSocket mode) on 127.0.0.1.
final class WebSocketClientTests: TransportTestCase {
    /// What a subscription to `messages` saw.
    private final class Recording: Sendable {
        let messages = LockedBox([WebSocketMessage]())
        let states = LockedBox([WebSocketState]())
        let end = LockedBox<Result<Void, HTTPClientError>?>(nil)
        let ended = DispatchSemaphore(value: 0)

        var error: HTTPClientError? {
            if case .failure(let error)? = end.value { return error }
            return nil
        }
    }

    private func record(_ socket: WebSocket) -> (Recording, Disposable) {
        let recording = Recording()
        let states = socket.state.subscribe(onNext: { state in recording.states.mutate { $0.append(state) } })
        let messages = socket.messages.subscribe(
            onNext: { message in recording.messages.mutate { $0.append(message) } },
            onError: { error in
                recording.end.set(.failure(error as? HTTPClientError ?? HTTPClientError(.transport, underlying: error)))
                recording.ended.signal()
            },
            onCompleted: {
                recording.end.set(.success(()))
                recording.ended.signal()
            }
        )
        return (recording, Disposables.create(states, messages))
    }

    private func waitUntil(_ timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// "sent", the error code of a failed send, or "no answer".
    private func sendResult(_ completable: Completable, timeout: TimeInterval = 5) -> String {
        let result = LockedBox("no answer")
        let done = DispatchSemaphore(value: 0)
        let subscription = completable.subscribe(
            onCompleted: { result.set("sent"); done.signal() },
            onError: { error in result.set((error as? HTTPClientError)?.code.rawValue ?? "\(error)"); done.signal() }
        )
        _ = done.wait(timeout: .now() + timeout)
        subscription.dispose()
        return result.value
    }

    private let quickReconnect = ReconnectPolicy(delay: .constant(time: 0.05), jitter: .none, maxReconnects: 3)

    func testEchoBothKindsInOrderWithTheStatesOfItsLife() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)], protocol: "chat"))
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(path: "/echo", protocols: ["chat"])
        let (recording, subscription) = record(socket)
        XCTAssertEqual(sendResult(socket.send(.text("hello"))), "sent")
        XCTAssertEqual(sendResult(socket.send(.binary(Data([1, 2, 3])))), "sent")
        XCTAssertTrue(waitUntil { recording.messages.value.count == 2 })
        XCTAssertEqual(recording.messages.value, [.text("hello"), .binary(Data([1, 2, 3]))])
        XCTAssertEqual(server.webSocketMessages(at: "/echo"), [.text("hello"), .binary(Data([1, 2, 3]))])
        XCTAssertEqual(socket.selectedProtocol, "chat")
        subscription.dispose()
        XCTAssertTrue(waitUntil { socket.currentState == .closed(code: .normalClosure, reason: "") })
        XCTAssertEqual(Array(recording.states.value.prefix(3)), [.idle, .connecting, .open])
        XCTAssertEqual(server.requests.first?.header("Sec-WebSocket-Version"), "13")
    }

    func testAThousandMessagesArriveOnceInOrderThenTheServersNormalCloseCompletes() throws {
        server.route(.get, "/feed", .webSocket([.sendMany(count: 1_000, prefix: "m"), .close(code: 1000, reason: "done")]))
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(path: "/feed", reconnect: quickReconnect)
        let (recording, subscription) = record(socket)
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 10), .success)
        subscription.dispose()
        XCTAssertEqual(recording.messages.value, (0..<1_000).map { .text("m\($0)") })
        guard case .success? = recording.end.value else { return XCTFail("expected a completion, got \(String(describing: recording.end.value))") }
        XCTAssertEqual(recording.states.value.last, .closed(code: .normalClosure, reason: "done"))
        XCTAssertEqual(server.requests.count, 1, "a normal close does not reconnect")
    }

    /// wss: the handshake and the frames go through TLS (the relay's certificate, trusted through
    /// the transport's configuration), by name and by IP literal (no SNI, the address checked).
    func testEchoOverTLSWithTheTransportsTrustRoots() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let relay = try TLSRelay(backendPort: Int(server.port))
        defer { relay.stop() }
        var configuration = AsyncHTTPClientTransport.daemonConfiguration()
        configuration.tlsConfiguration = .makeClientConfiguration()
        configuration.tlsConfiguration?.trustRoots = .certificates([try TestCertificate.certificate()])
        for host in ["localhost", "127.0.0.1"] {
            let client = makeClient(
                .asyncHTTPClient, baseURL: URL(string: "https://\(host):\(relay.port)"), transport: AsyncHTTPClientTransport(configuration: configuration)
            )
            let socket = client.webSocket(path: "/echo", reconnect: .never)
            let (recording, subscription) = record(socket)
            XCTAssertEqual(sendResult(socket.send(.text("over tls"))), "sent", host)
            XCTAssertEqual(sendResult(socket.send(.binary(Data(repeating: 7, count: 70_000)))), "sent", host)
            XCTAssertTrue(waitUntil { recording.messages.value.count == 2 }, host)
            XCTAssertEqual(recording.messages.value, [.text("over tls"), .binary(Data(repeating: 7, count: 70_000))], host)
            subscription.dispose()
            XCTAssertTrue(waitUntil { socket.currentState == .closed(code: .normalClosure, reason: "") }, host)
            XCTAssertNil(recording.error, host)
        }
    }

    /// A certificate the transport does not trust fails the socket before the handshake is sent.
    func testAnUntrustedCertificateFailsBeforeTheHandshakeIsSent() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let relay = try TLSRelay(backendPort: Int(server.port))
        defer { relay.stop() }
        let client = makeClient(.asyncHTTPClient, baseURL: URL(string: "https://localhost:\(relay.port)"))
        let socket = client.webSocket(path: "/echo", reconnect: .never)
        let (recording, subscription) = record(socket)
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        subscription.dispose()
        XCTAssertEqual(recording.error?.code, .transport)
        XCTAssertEqual(recording.error?.phase, .notSent)
        XCTAssertEqual(server.requests.count, 0, "the handshake reached the server")
        XCTAssertTrue(recording.messages.value.isEmpty)
    }

    /// `deliversOnConnectionThread`: the messages come on the connection's event loop, not on the
    /// client's callback queue, all of them, in order.
    func testMessagesDeliveredOnTheConnectionThreadSkipTheCallbackQueue() throws {
        server.route(.get, "/feed", .webSocket([.sendMany(count: 1_000, prefix: "m"), .close(code: 1000, reason: "done")]))
        let callbackQueue = DispatchQueue(label: "test.callbacks")
        let key = DispatchSpecificKey<Bool>()
        callbackQueue.setSpecific(key: key, value: true)
        for inline in [false, true] {
            let client = makeClient(.asyncHTTPClient, callbackQueue: callbackQueue)
            let socket = client.webSocket(
                path: "/feed", reconnect: .never, options: WebSocketOptions(pingInterval: .infinity, deliversOnConnectionThread: inline)
            )
            let onCallbackQueue = LockedBox([Bool]())
            let (recording, subscription) = record(socket)
            let threads = socket.messages.subscribe(onNext: { _ in
                onCallbackQueue.mutate { $0.append(DispatchQueue.getSpecific(key: key) == true) }
            })
            XCTAssertEqual(recording.ended.wait(timeout: .now() + 10), .success)
            subscription.dispose()
            threads.dispose()
            XCTAssertEqual(recording.messages.value, (0..<1_000).map { .text("m\($0)") }, "inline: \(inline)")
            XCTAssertNil(recording.error)
            XCTAssertEqual(onCallbackQueue.value.count, 1_000)
            XCTAssertEqual(Set(onCallbackQueue.value), [!inline], "inline: \(inline)")
        }
    }

    func testACloseForGoodFailsTypedWithTheServersCodeAndReason() throws {
        server.route(.get, "/ws", .webSocket([.close(code: 4001, reason: "banned")]))
        let client = makeClient(.asyncHTTPClient)
        let (recording, subscription) = record(client.webSocket(path: "/ws", reconnect: quickReconnect))
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        subscription.dispose()
        let error = try XCTUnwrap(recording.error)
        XCTAssertEqual(error.code, .webSocketClosed)
        XCTAssertEqual(error.webSocketCloseCode, 4001)
        XCTAssertTrue(error.description.contains("banned"), error.description)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testADropMidMessageLosesOnlyTheCutMessageAndReconnects() throws {
        let half = Data(WebSocketFrameHalf.textFrameCutInHalf("never whole"))
        server.route(.get, "/ws", responses: [
            .webSocket([.send(.text("one")), .sendRaw(half), .drop]),
            .webSocket([.send(.text("two")), .close(code: 1000, reason: "")]),
        ])
        let client = makeClient(.asyncHTTPClient)
        let (recording, subscription) = record(client.webSocket(path: "/ws", reconnect: quickReconnect))
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        subscription.dispose()
        XCTAssertEqual(recording.messages.value, [.text("one"), .text("two")])
        XCTAssertEqual(recording.states.value, [
            .idle, .connecting, .open, .reconnecting(attempt: 1, after: 0.05), .connecting, .open,
            .closed(code: .normalClosure, reason: ""),
        ])
        XCTAssertEqual(server.requests.count, 2)
    }

    func testTheReconnectWaitRunsOnTheGivenSchedulerInVirtualTime() throws {
        server.route(.get, "/ws", responses: [
            .webSocket([.send(.text("first")), .drop]),
            .webSocket([.send(.text("second"))]),
        ])
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(
            path: "/ws", reconnect: ReconnectPolicy(delay: .constant(time: 30), jitter: .none, reconnectsWhenReachable: false),
            options: WebSocketOptions(pingInterval: .infinity, scheduler: scheduler)
        )
        let (recording, subscription) = record(socket)
        XCTAssertTrue(waitUntil { socket.currentState == .reconnecting(attempt: 1, after: 30) }, "\(recording.states.value)")
        scheduler.advanceTo(29_999)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(server.requests.count, 1, "no reconnect before the 30 virtual seconds")
        scheduler.advanceTo(30_000)
        XCTAssertTrue(waitUntil { recording.messages.value == [.text("first"), .text("second")] }, "\(recording.messages.value)")
        subscription.dispose()
        XCTAssertEqual(Array(recording.states.value.prefix(6)), [
            .idle, .connecting, .open, .reconnecting(attempt: 1, after: 30), .connecting, .open,
        ])
        XCTAssertEqual(server.requests.count, 2)
    }

    func testAServerThatStopsAnsweringPingsIsDeclaredDead() throws {
        server.route(.get, "/silent", .webSocket([.ignorePings]))
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(
            path: "/silent", reconnect: .never, options: WebSocketOptions(pingInterval: 0.1, pongTimeout: 0.1)
        )
        let started = Date()
        let (recording, subscription) = record(socket)
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        subscription.dispose()
        let error = try XCTUnwrap(recording.error)
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.webSocketCloseCode, .abnormalClosure)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testAMessageOverTheLimitClosesWith1009AndFailsTyped() throws {
        server.route(.get, "/big", .webSocket([.send(.binary(Data(count: 4_096)))]))
        let client = makeClient(.asyncHTTPClient)
        let (recording, subscription) = record(client.webSocket(path: "/big", options: WebSocketOptions(maxMessageSize: 1_024)))
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        subscription.dispose()
        let error = try XCTUnwrap(recording.error)
        XCTAssertEqual(error.code, .responseTooLarge)
        XCTAssertEqual(error.webSocketCloseCode, .messageTooBig)
        XCTAssertTrue(recording.messages.value.isEmpty)
    }

    func testA401OnTheUpgradeRefreshesOnceAndOpens() throws {
        server.route(.get, "/private") { request in
            request.header("Authorization") == "Bearer fresh" ? .webSocket([.send(.text("welcome"))]) : .status(401)
        }
        let refreshes = LockedBox(0)
        let authenticator = OAuthAuthenticator(
            store: InMemoryCredentialStore(OAuthCredential(accessToken: "stale", refreshToken: "r1")),
            refresher: .custom { _ in
                refreshes.mutate { $0 += 1 }
                return .just(OAuthCredential(accessToken: "fresh", refreshToken: "r2"))
            }
        )
        let client = RxHTTP.HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: .none),
            transport: AsyncHTTPClientTransport(), authenticator: authenticator
        )
        let socket = client.webSocket(path: "/private")
        let (recording, subscription) = record(socket)
        XCTAssertTrue(waitUntil { recording.messages.value == [.text("welcome")] })
        subscription.dispose()
        XCTAssertTrue(waitUntil { socket.currentState == .closed(code: .normalClosure, reason: "") })
        let drained = DispatchSemaphore(value: 0)
        let shutdown = client.shutdown(gracePeriod: 1).subscribe { _ in drained.signal() }
        XCTAssertEqual(drained.wait(timeout: .now() + 5), .success)
        shutdown.dispose()
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(server.requests.map { $0.header("Authorization") ?? "" }, ["Bearer stale", "Bearer fresh"])
    }

    func testSendsWaitWhileConnectingAndGoOutInOrder() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(path: "/echo", options: WebSocketOptions(maxQueuedSends: 3))
        let (recording, subscription) = record(socket)
        // Sent at once, on this thread: the handshake has not been answered yet.
        XCTAssertEqual(socket.currentState == .open, false)
        let sent = (0..<4).map { index in
            let result = LockedBox<String>("pending")
            _ = socket.send(.text("q\(index)")).subscribe(
                onCompleted: { result.set("sent") },
                onError: { error in result.set((error as? HTTPClientError)?.code.rawValue ?? "?") }
            )
            return result
        }
        XCTAssertTrue(waitUntil { recording.messages.value.count == 3 })
        XCTAssertEqual(recording.messages.value, [.text("q0"), .text("q1"), .text("q2")])
        XCTAssertEqual(sent.map(\.value), ["sent", "sent", "sent", "bufferOverflow"])
        subscription.dispose()
    }

    func testCloseCompletesWithTheCodeGivenAndAnUnsendableOneGoesOutAs1000() throws {
        server.route(.get, "/ws", .webSocket([]))
        let client = makeClient(.asyncHTTPClient)
        for (given, expected) in [(WebSocketCloseCode(rawValue: 4000), WebSocketCloseCode(rawValue: 4000)), (.abnormalClosure, .normalClosure)] {
            let socket = client.webSocket(path: "/ws")
            let (recording, subscription) = record(socket)
            XCTAssertTrue(waitUntil { socket.currentState == .open })
            socket.close(code: given, reason: "done")
            XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
            subscription.dispose()
            guard case .success? = recording.end.value else { return XCTFail("close completes the socket") }
            XCTAssertEqual(socket.currentState, .closed(code: expected, reason: "done"))
        }
        XCTAssertEqual(server.requests.count, 2)
    }

    func testShutdownClosesWith1001AndCompletesTheSocket() throws {
        server.route(.get, "/ws", .webSocket([]))
        let client = makeClient(.asyncHTTPClient)
        let socket = client.webSocket(path: "/ws")
        let (recording, subscription) = record(socket)
        XCTAssertTrue(waitUntil { socket.currentState == .open })
        let shutDown = DispatchSemaphore(value: 0)
        let shutdown = client.shutdown(gracePeriod: 2).subscribe { _ in shutDown.signal() }
        XCTAssertEqual(recording.ended.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(shutDown.wait(timeout: .now() + 5), .success)
        shutdown.dispose()
        subscription.dispose()
        guard case .success? = recording.end.value else { return XCTFail("expected a completion") }
        XCTAssertEqual(socket.currentState, .closed(code: .goingAway, reason: "client shutting down"))
    }

    func testASocketNobodyHoldsStillClosesItsConnectionAndReportsItsLife() throws {
        server.route(.get, "/ws", .webSocket([.send(.text("hi"))]))
        let client = makeClient(.asyncHTTPClient)
        let events = LockedBox([String]())
        let watching = client.events.subscribe(onNext: { event in
            switch event.kind {
            case .webSocketOpened, .webSocketClosed, .webSocketReconnecting: events.mutate { $0.append(event.description) }
            default: break
            }
        })
        let received = LockedBox(0)
        let subscription = client.webSocket(path: "/ws").messages.subscribe(onNext: { _ in received.mutate { $0 += 1 } })
        XCTAssertTrue(waitUntil { received.value == 1 })
        subscription.dispose()
        XCTAssertTrue(waitUntil { events.value.count == 2 }, "\(events.value)")
        XCTAssertTrue(waitUntil { server.openConnectionCount == 0 }, "the connection stays open")
        watching.dispose()
        XCTAssertTrue(events.value.first?.contains("WebSocket open") ?? false, "\(events.value)")
        XCTAssertTrue(events.value.last?.contains("WebSocket closed with 1000 after 1 received, 0 sent") ?? false, "\(events.value)")
        XCTAssertTrue(events.value.allSatisfy { $0.contains("/ws") }, "events name the socket's URL: \(events.value)")
    }

    func testOneLongLivedClientReleasesEverySocketItOpened() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        server.route(.get, "/drop", .webSocket([.drop]))
        let client = makeClient(.asyncHTTPClient)
        // Warm up the event loop's threads and descriptors before taking the baseline.
        do {
            let socket = client.webSocket(path: "/echo")
            let (recording, subscription) = record(socket)
            _ = sendResult(socket.send(.text("warm")))
            XCTAssertTrue(waitUntil { recording.messages.value.count == 1 })
            subscription.dispose()
            XCTAssertTrue(waitUntil { socket.currentState != .open })
        }
        XCTAssertTrue(waitUntil { server.openConnectionCount == 0 })
        let baseline = openDescriptorCount()
        for round in 0..<60 {
            let socket = client.webSocket(path: round % 3 == 2 ? "/drop" : "/echo", reconnect: .never)
            let (recording, subscription) = record(socket)
            if round % 3 == 0 {
                _ = sendResult(socket.send(.text("r\(round)")))
                XCTAssertTrue(waitUntil { recording.messages.value.count == 1 })
            }
            // Cancel mid-handshake, mid-conversation, or after the server dropped.
            subscription.dispose()
            XCTAssertTrue(waitUntil { if case .connecting = socket.currentState { false } else if case .open = socket.currentState { false } else { true } })
        }
        XCTAssertTrue(waitUntil { server.openConnectionCount == 0 }, "the server still holds \(server.openConnectionCount)")
        XCTAssertTrue(waitUntil { self.openDescriptorCount() <= baseline }, "descriptors \(baseline) → \(openDescriptorCount())")
    }

    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}

/// A text frame from the server (unmasked) cut after half its bytes: a message that never
/// completes.
private enum WebSocketFrameHalf {
    static func textFrameCutInHalf(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let frame = [0x81, UInt8(payload.count)] + payload
        return Array(frame.prefix(frame.count / 2))
    }
}
#endif
