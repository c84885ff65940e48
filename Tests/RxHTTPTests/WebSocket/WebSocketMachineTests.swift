import Foundation
@_spi(RxNetworkKitInternals) import RxCore
@testable import RxHTTP
import XCTest

/// Every transition of `WebSocketMachine`, driven by hand: no transport, no clock, no thread.
final class WebSocketMachineTests: XCTestCase {
    /// A connection that only records what the machine's effects would do to it.
    private final class RecordedConnection: UpgradedConnection {
        func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void) {}
        func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void) {}
        func close() {}
    }

    private let now = Date(timeIntervalSince1970: 1_000)
    private let key = "dGhlIHNhbXBsZSBub25jZQ=="

    private func machine(
        reconnect: ReconnectPolicy = ReconnectPolicy(delay: .constant(time: 2), jitter: .none, maxReconnects: 3),
        options: WebSocketOptions = WebSocketOptions(pingInterval: 30, pongTimeout: 10, maxQueuedSends: 2)
    ) -> WebSocketMachine {
        WebSocketMachine(options: options, reconnect: reconnect, protocols: [])
    }

    private func observer(_ log: LockedState<[String]>) -> AnyObserver<WebSocketMessage> {
        AnyObserver { event in
            log.withLock { $0.append("\(event)") }
        }
    }

    // MARK: Reading effects

    private func states(_ effects: [WebSocketMachine.Effect]) -> [WebSocketState] {
        effects.compactMap { if case .deliver(.state(let state)) = $0 { state } else { nil } }
    }

    private func messages(_ effects: [WebSocketMachine.Effect]) -> [WebSocketMessage] {
        effects.flatMap { effect -> [WebSocketMessage] in
            if case .deliver(.messages(let messages, _)) = effect { return messages }
            return []
        }
    }

    private func ending(_ effects: [WebSocketMachine.Effect]) -> WebSocketMachine.Ending? {
        effects.lazy.compactMap { if case .deliver(.end(let ending, _)) = $0 { ending } else { nil } }.first
    }

    private func written(_ effects: [WebSocketMachine.Effect]) -> [WebSocketFrame] {
        effects.compactMap { if case .write(_, let frame, _, _) = $0 { frame } else { nil } }
    }

    private func timers(_ effects: [WebSocketMachine.Effect]) -> [(WebSocketMachine.Timer, TimeInterval)] {
        effects.compactMap { if case .startTimer(let timer, _, let after) = $0 { (timer, after) } else { nil } }
    }

    private func closesConnection(_ effects: [WebSocketMachine.Effect]) -> Bool {
        effects.contains { if case .closeConnection = $0 { true } else { false } }
    }

    private func slot(_ effects: [WebSocketMachine.Effect]) -> (Int, WebSocketUpgradeSlot)? {
        effects.lazy.compactMap { if case .connect(let generation, let slot) = $0 { (generation, slot) } else { nil } }.first
    }

    /// The server's frame bytes (unmasked, as a server sends).
    private func serverFrame(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8], final: Bool = true) -> Data {
        Data(WebSocketFrameEncoder.encode(WebSocketFrame(isFinal: final, opcode: opcode, payload: payload), mask: nil))
    }

    private func closeFrame(_ code: UInt16, _ reason: String = "") -> Data {
        serverFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// Subscribes once and answers the handshake with a 101: the machine is open on generation 1.
    private func open(_ machine: inout WebSocketMachine, log: LockedState<[String]> = .make([])) -> Int {
        let effects = machine.subscribe(1, observer(log), now: now)
        guard let (generation, slot) = slot(effects) else {
            XCTFail("no connect effect")
            return 0
        }
        let head = HTTPResponseHead(statusCode: 101, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: slot.key),
        ])
        XCTAssertNil(slot.accept(head, connection: RecordedConnection()))
        let opened = machine.upgraded(generation: generation)
        XCTAssertEqual(states(opened), [.open])
        return generation
    }

    // MARK: Tests

    func testTheFirstSubscriberConnectsAndAFurtherOneSharesTheConnection() {
        var machine = machine()
        let log = LockedState<[String]>.make([])
        let first = machine.subscribe(1, observer(log), now: now)
        XCTAssertEqual(states(first), [.connecting])
        XCTAssertNotNil(slot(first))
        XCTAssertTrue(first.contains { if case .register = $0 { true } else { false } })
        XCTAssertTrue(machine.subscribe(2, observer(log), now: now).isEmpty, "the second shares the connection")
    }

    func testOpenMessagesArriveWholeInOrderAcrossAnySplit() {
        var machine = machine()
        let generation = open(&machine)
        var bytes = serverFrame(.text, Array("hel".utf8), final: false)
        bytes += serverFrame(.continuation, Array("lo".utf8))
        bytes += serverFrame(.binary, [1, 2, 3])
        var delivered: [WebSocketMessage] = []
        for byte in bytes {
            delivered += messages(machine.received(Data([byte]), generation: generation, now: now))
        }
        XCTAssertEqual(delivered, [.text("hello"), .binary(Data([1, 2, 3]))])
    }

    func testAPingIsAnsweredWithAPongCarryingItsPayload() {
        var machine = machine()
        let generation = open(&machine)
        let effects = machine.received(serverFrame(.ping, [7, 8]), generation: generation, now: now)
        XCTAssertEqual(written(effects), [WebSocketFrame(opcode: .pong, payload: [7, 8])])
    }

    func testAPingWithoutAPongInTimeEndsTheConnectionAsDeadAndReconnects() throws {
        var machine = machine()
        let generation = open(&machine)
        let ping = machine.timerFired(.ping, generation: generation, now: now)
        XCTAssertEqual(written(ping).map(\.opcode), [.ping])
        let pong = try XCTUnwrap(timers(ping).first { if case .pong = $0.0 { true } else { false } })
        XCTAssertEqual(pong.1, 10)
        let dead = machine.timerFired(pong.0, generation: generation, now: now)
        XCTAssertTrue(closesConnection(dead))
        XCTAssertEqual(states(dead), [.reconnecting(attempt: 1, after: 2)])
    }

    func testAPongInTimeKeepsTheConnectionEvenWhenItsTimerStartsLate() throws {
        var machine = machine()
        let generation = open(&machine)
        let ping = machine.timerFired(.ping, generation: generation, now: now)
        let pong = try XCTUnwrap(timers(ping).first { if case .pong = $0.0 { true } else { false } })
        _ = machine.received(serverFrame(.pong, Array("1".utf8)), generation: generation, now: now)
        // The timer's handle comes back after the pong (another thread): it is disposed, not kept.
        let late = machine.timerStarted(pong.0, generation: generation, Disposables.create())
        XCTAssertTrue(late.contains { if case .dispose = $0 { true } else { false } })
        XCTAssertTrue(machine.timerFired(pong.0, generation: generation, now: now).isEmpty)
        guard case .open = machine.state else { return XCTFail("expected open, got \(machine.state)") }
    }

    func testTheServersNormalCloseIsAnsweredAndCompletesWithoutReconnecting() {
        var machine = machine()
        let generation = open(&machine)
        let effects = machine.received(closeFrame(1000, "bye"), generation: generation, now: now)
        XCTAssertEqual(written(effects), [WebSocketMachine.closeFrame(.normalClosure, reason: "")])
        XCTAssertTrue(closesConnection(effects))
        XCTAssertEqual(states(effects), [.closed(code: .normalClosure, reason: "bye")])
        guard case .completed? = ending(effects) else { return XCTFail("expected a completion") }
        guard case .idle = machine.state else { return XCTFail("expected idle") }
    }

    func testCloseCodesThatMayPassReconnectAndTheOthersEndForGood() {
        for code: UInt16 in [1001, 1011, 1012, 1013, 1014] {
            var machine = machine()
            let generation = open(&machine)
            let effects = machine.received(closeFrame(code), generation: generation, now: now)
            XCTAssertEqual(states(effects), [.reconnecting(attempt: 1, after: 2)], "\(code)")
            XCTAssertEqual(timers(effects).first?.1, 2)
        }
        for code: UInt16 in [1002, 1003, 1007, 1008, 1009, 1010, 3000, 4000, 4999] {
            var machine = machine()
            let generation = open(&machine)
            let effects = machine.received(closeFrame(code, "no"), generation: generation, now: now)
            guard case .failed(let error, let closeCode, _)? = ending(effects) else { return XCTFail("\(code) should fail") }
            XCTAssertEqual(error.code, .webSocketClosed)
            XCTAssertEqual(error.webSocketCloseCode?.rawValue, code)
            XCTAssertEqual(closeCode.rawValue, code)
        }
    }

    func testADropReconnectsPerThePolicyUntilItGivesUp() throws {
        var machine = machine()
        var generation = open(&machine)
        for attempt in 1...3 {
            let dropped = machine.connectionEnded(generation: generation, error: nil, now: now)
            XCTAssertEqual(states(dropped), [.reconnecting(attempt: attempt, after: 2)])
            let waiting = try XCTUnwrap(timers(dropped).first)
            guard case .waiting(let wait) = machine.state else { return XCTFail("expected waiting") }
            let again = machine.timerFired(waiting.0, generation: wait.generation, now: now)
            XCTAssertEqual(states(again), [.connecting])
            let (next, slot) = try XCTUnwrap(slot(again))
            XCTAssertNil(slot.accept(HTTPResponseHead(statusCode: 101, headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: slot.key),
            ]), connection: RecordedConnection()))
            _ = machine.upgraded(generation: next)
            generation = next
        }
        let last = machine.connectionEnded(generation: generation, error: nil, now: now)
        guard case .failed(let error, let code, _)? = ending(last) else { return XCTFail("the fourth drop should end it") }
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(code, .abnormalClosure)
    }

    func testAMessageInARowResetsTheReconnectCount() throws {
        var machine = machine()
        let generation = open(&machine)
        _ = machine.connectionEnded(generation: generation, error: nil, now: now)
        guard case .waiting(let wait) = machine.state else { return XCTFail("expected waiting") }
        let again = machine.reachable(generation: wait.generation)
        let (next, slot) = try XCTUnwrap(slot(again))
        XCTAssertNil(slot.accept(HTTPResponseHead(statusCode: 101, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: slot.key),
        ]), connection: RecordedConnection()))
        _ = machine.upgraded(generation: next)
        _ = machine.received(serverFrame(.text, Array("x".utf8)), generation: next, now: now)
        let dropped = machine.connectionEnded(generation: next, error: nil, now: now)
        XCTAssertEqual(states(dropped), [.reconnecting(attempt: 1, after: 2)])
    }

    func testAnUpgradeRefusedForGoodEndsAndOneThatMayPassWaits() throws {
        var refused = machine()
        let first = refused.subscribe(1, observer(.make([])), now: now)
        let (generation, _) = try XCTUnwrap(slot(first))
        let forbidden = refused.upgradeFailed(
            generation: generation, HTTPClientError(.unacceptableStatusCode, statusCode: 403), now: now
        )
        guard case .failed(let error, _, _)? = ending(forbidden) else { return XCTFail("403 ends it") }
        XCTAssertEqual(error.statusCode, 403)

        var busy = machine()
        let start = busy.subscribe(1, observer(.make([])), now: now)
        let (busyGeneration, _) = try XCTUnwrap(slot(start))
        let unavailable = busy.upgradeFailed(
            generation: busyGeneration,
            HTTPClientError(.unacceptableStatusCode, statusCode: 503, headers: ["Retry-After": "7"]), now: now
        )
        XCTAssertEqual(states(unavailable), [.reconnecting(attempt: 1, after: 7)], "Retry-After raises the wait")

        // The client's own refusal says "not now": the socket waits for the circuit's trial.
        var guarded = machine()
        let opening = guarded.subscribe(1, observer(.make([])), now: now)
        let (guardedGeneration, _) = try XCTUnwrap(slot(opening))
        var circuitOpen = HTTPClientError(.circuitOpen, phase: .notSent)
        circuitOpen.suggestedRetryAfter = 12
        let refusal = guarded.upgradeFailed(generation: guardedGeneration, circuitOpen, now: now)
        XCTAssertEqual(states(refusal), [.reconnecting(attempt: 1, after: 12)])
    }

    func testAProtocolErrorClosesWithItsCodeAndFailsTyped() {
        var machine = machine(options: WebSocketOptions(maxMessageSize: 200))
        let generation = open(&machine)
        let tooBig = machine.received(serverFrame(.binary, Array(repeating: 0, count: 300)), generation: generation, now: now)
        XCTAssertEqual(written(tooBig).first.map { Array($0.payload.prefix(2)) }, [0x03, 0xF1], "1009")
        XCTAssertTrue(closesConnection(tooBig), "a failed connection is not read any more (§7.1.7)")
        guard case .failed(let error, _, _)? = ending(tooBig) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .responseTooLarge)
        XCTAssertEqual(error.webSocketCloseCode, .messageTooBig)

        var invalid = self.machine()
        let next = open(&invalid)
        let text = invalid.received(serverFrame(.text, [0xFF, 0xFE]), generation: next, now: now)
        XCTAssertEqual(written(text).first.map { Array($0.payload.prefix(2)) }, [0x03, 0xEF], "1007")
    }

    func testTheLastSubscriberLeavingClosesWith1000AndTheCloseTimerEndsAnUnansweredClose() throws {
        var machine = machine()
        let generation = open(&machine)
        _ = machine.subscribe(2, observer(.make([])), now: now)
        XCTAssertTrue(machine.unsubscribe(1).isEmpty)
        let leaving = machine.unsubscribe(2)
        XCTAssertEqual(written(leaving), [WebSocketMachine.closeFrame(.normalClosure, reason: "")])
        let timer = try XCTUnwrap(timers(leaving).first)
        XCTAssertEqual(timer.0, .close)
        let ended = machine.timerFired(.close, generation: generation, now: now)
        XCTAssertTrue(closesConnection(ended))
        XCTAssertEqual(states(ended), [.closed(code: .normalClosure, reason: "")])
    }

    func testASubscriberArrivingDuringTheCloseGetsAFreshConnectionNotTheEndOfTheOldOne() throws {
        var machine = machine()
        let generation = open(&machine)
        _ = machine.unsubscribe(1)
        let latecomer = LockedState<[String]>.make([])
        XCTAssertTrue(machine.subscribe(2, observer(latecomer), now: now).isEmpty)
        let closed = machine.received(closeFrame(1000), generation: generation, now: now)
        guard case .end(_, let told)? = closed.lazy.compactMap({ if case .deliver(let delivery) = $0, case .end = delivery { delivery } else { nil } }).first
        else { return XCTFail("the old subscription ends") }
        XCTAssertTrue(told.isEmpty, "the leaver was already gone; the latecomer is not ended")
        XCTAssertNotNil(slot(closed), "the latecomer connects again")
        XCTAssertEqual(states(closed), [.closed(code: .normalClosure, reason: ""), .connecting])
        XCTAssertEqual(machine.subscribers.count, 1)
    }

    func testSendsQueueWhileConnectingUpToTheBoundAndGoOutInOrderOnOpen() throws {
        var machine = machine()
        let first = machine.subscribe(1, observer(.make([])), now: now)
        let (generation, slot) = try XCTUnwrap(slot(first))
        let failures = LockedState<[String]>.make([])
        for (id, text) in ["a", "b", "c"].enumerated() {
            let effects = machine.send(id, WebSocketFrame(opcode: .text, payload: Array(text.utf8))) { _ in }
            for case .completeSends(_, let error?) in effects {
                failures.withLock { $0.append("\((error as? HTTPClientError)?.code.rawValue ?? "?")") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, ["bufferOverflow"], "the third passes maxQueuedSends = 2")
        XCTAssertNil(slot.accept(HTTPResponseHead(statusCode: 101, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: slot.key),
        ]), connection: RecordedConnection()))
        let opened = machine.upgraded(generation: generation)
        XCTAssertEqual(written(opened).map { String(decoding: $0.payload, as: UTF8.self) }, ["a", "b"])
    }

    func testASendWithoutSubscribersFailsAtOnceAndAQueuedOneCanBeWithdrawn() {
        var idle = machine()
        let effects = idle.send(1, WebSocketFrame(opcode: .text, payload: [])) { _ in }
        guard case .completeSends(_, let error as HTTPClientError)? = effects.first else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .cancelled)

        var connecting = machine()
        _ = connecting.subscribe(1, observer(.make([])), now: now)
        _ = connecting.send(5, WebSocketFrame(opcode: .text, payload: [])) { _ in }
        XCTAssertEqual(connecting.queue.count, 1)
        connecting.cancelSend(5)
        XCTAssertTrue(connecting.queue.isEmpty)
    }

    func testShutdownClosesWith1001ThenCompletesAndRefusesNewSubscribers() {
        var machine = machine()
        let generation = open(&machine)
        let shutdown = machine.clientIsShuttingDown()
        XCTAssertEqual(written(shutdown).first.map { Array($0.payload.prefix(2)) }, [0x03, 0xE9], "1001")
        let ended = machine.received(closeFrame(1001), generation: generation, now: now)
        guard case .completed(let code, _)? = ending(ended) else { return XCTFail("shutdown completes") }
        XCTAssertEqual(code, .goingAway)
        let late = machine.subscribe(2, observer(.make([])), now: now)
        guard case .failed(let error, _, _)? = ending(late) else { return XCTFail("a late subscriber fails") }
        XCTAssertEqual(error.code, .shutdown)
    }

    func testTheGracePeriodDropsAClosingConnection() {
        var machine = machine()
        _ = open(&machine)
        _ = machine.clientIsShuttingDown()
        let dropped = machine.gracePeriodEnded(now: now)
        XCTAssertTrue(closesConnection(dropped))
        guard case .completed? = ending(dropped) else { return XCTFail("expected a completion") }
    }

    func testStaleEventsOfAnEarlierConnectionChangeNothing() {
        var machine = machine()
        let generation = open(&machine)
        _ = machine.connectionEnded(generation: generation, error: nil, now: now)
        XCTAssertTrue(machine.received(serverFrame(.text, Array("late".utf8)), generation: generation, now: now).isEmpty)
        XCTAssertTrue(machine.connectionEnded(generation: generation, error: nil, now: now).isEmpty)
        XCTAssertTrue(machine.timerFired(.ping, generation: generation, now: now).isEmpty)
        let call = machine.callStarted(generation: generation, Disposables.create())
        XCTAssertTrue(call.contains { if case .dispose = $0 { true } else { false } }, "a late call handle is cancelled")
    }

    func testTheDeadlineOfThePolicyEndsTheWaits() {
        var machine = machine(reconnect: ReconnectPolicy(delay: .constant(time: 5), jitter: .none, deadline: 3))
        let generation = open(&machine)
        let dropped = machine.connectionEnded(generation: generation, error: nil, now: now)
        guard case .failed? = ending(dropped) else { return XCTFail("a wait past the deadline ends it") }
    }

    func testAReasonIsClippedToWholeCharactersWithinTheFrame() {
        XCTAssertEqual(WebSocketMachine.clipped(String(repeating: "€", count: 60)), String(repeating: "€", count: 41))
        XCTAssertEqual(WebSocketMachine.clipped("bye"), "bye")
    }

    func testACloseReasonIsCutToAControlFrameOnACharacterBoundary() {
        let frame = WebSocketMachine.closeFrame(.normalClosure, reason: String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(frame.payload.count, 125)
        XCTAssertNotNil(String(validating: frame.payload.dropFirst(2), as: UTF8.self))
    }
}
