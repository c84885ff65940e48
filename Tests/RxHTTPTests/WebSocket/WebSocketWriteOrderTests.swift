import Foundation
@_spi(RxNetworkKitInternals) import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// What reaches the wire follows the socket's state machine, whichever threads the events came
/// from: sends racing a `close` on other threads never put a message after the close frame, and
/// nothing is written after the connection was closed (RFC 6455 §5.5.1).
final class WebSocketWriteOrderTests: RxTestCase {
    /// A connection that records, in order, the opcode of every frame written and its own close.
    private final class RecordingConnection: UpgradedConnection {
        private let log = LockedState<[String]>.make([])

        var entries: [String] { log.withLock { $0 } }

        func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void) {}

        func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void) {
            let opcode = data.first.map { $0 & 0x0F } ?? 0xFF
            log.withLock { $0.append(opcode == 0x8 ? "close" : opcode == 0x1 || opcode == 0x2 ? "message" : "control") }
            DispatchQueue.global().async { completion(nil) }
        }

        func close() {
            log.withLock { $0.append("closed") }
        }
    }

    /// Switches protocols for every upgrade, handing out a fresh `RecordingConnection`.
    private final class RecordingTransport: HTTPTransport {
        let connections = LockedState<[RecordingConnection]>.make([])

        func send(_ request: HTTPTransportRequest, options: HTTPTransportOptions, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Disposable {
            completion(.success(HTTPResponse(statusCode: 404, url: request.url)))
            return Disposables.create()
        }

        func upgrade(
            _ request: HTTPTransportRequest, options: HTTPTransportOptions,
            completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
        ) -> Disposable {
            let key = request.value(forHTTPHeaderField: "Sec-WebSocket-Key") ?? ""
            let connection = RecordingConnection()
            connections.withLock { $0.append(connection) }
            let head = HTTPResponseHead(statusCode: 101, headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: key),
            ], url: request.url)
            DispatchQueue.global().async { completion(.success(.switched(head, connection))) }
            return Disposables.create()
        }
    }

    func testSendsRacingACloseOnOtherThreadsNeverFollowTheCloseFrame() throws {
        let transport = RecordingTransport()
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
        for round in 0..<40 {
            let socket = client.webSocket(path: "/ws", reconnect: .never, options: WebSocketOptions(pingInterval: .infinity, closeTimeout: 0.05))
            let subscription = socket.messages.subscribe { _ in }
            let deadline = Date().addingTimeInterval(2)
            while socket.currentState != .open && Date() < deadline { usleep(200) }
            XCTAssertEqual(socket.currentState, .open, "round \(round)")
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for sender in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    start.wait()
                    for index in 0..<25 {
                        _ = socket.send(.text("\(sender)-\(index)")).subscribe()
                        if index == 12 && sender == 0 { socket.close() }
                    }
                }
            }
            for _ in 0..<4 { start.signal() }
            group.wait()
            let closed = Date().addingTimeInterval(2)
            while !(socket.currentState.isClosed) && Date() < closed { usleep(200) }
            subscription.dispose()
            let wire = try XCTUnwrap(transport.connections.withLock { $0.last }).entries
            let closeFrame = try XCTUnwrap(wire.firstIndex(of: "close"), "round \(round): \(wire)")
            XCTAssertFalse(wire[closeFrame...].contains("message"), "round \(round): a message after the close frame: \(wire)")
            if let closedAt = wire.firstIndex(of: "closed") {
                XCTAssertEqual(closedAt, wire.count - 1, "round \(round): written after the connection closed: \(wire)")
            }
        }
        _ = client.shutdown(gracePeriod: 1).toBlocking(timeout: 5).materialize()
    }

    /// A shutdown completes after every socket of the client delivered its terminal event: a
    /// daemon that exits when the drain completes loses no `onCompleted`.
    func testShutdownCompletesAfterTheSocketsOnCompleted() throws {
        for round in 0..<20 {
            let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: RecordingTransport())
            let socket = client.webSocket(path: "/ws", reconnect: .never, options: WebSocketOptions(pingInterval: .infinity, closeTimeout: 0.02))
            let order = LockedState<[String]>.make([])
            let subscription = socket.messages.subscribe(onCompleted: { order.withLock { $0.append("socket completed") } })
            defer { subscription.dispose() }
            let deadline = Date().addingTimeInterval(2)
            while socket.currentState != .open && Date() < deadline { usleep(200) }
            XCTAssertEqual(socket.currentState, .open, "round \(round)")
            let drained = DispatchSemaphore(value: 0)
            _ = client.shutdown(gracePeriod: 1).subscribe(onCompleted: {
                order.withLock { $0.append("shutdown completed") }
                drained.signal()
            })
            XCTAssertEqual(drained.wait(timeout: .now() + 5), .success, "round \(round)")
            XCTAssertEqual(order.withLock { $0 }, ["socket completed", "shutdown completed"], "round \(round)")
        }
    }
}

private extension WebSocketState {
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}
