import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// A stream call ends when its body ends, not at its head: the completion event and the logger's
/// line carry the whole stream's duration and bytes.
final class StreamEndTests: LoopbackClientTestCase {
    private struct Export: Request {
        typealias Response = Data
        var path: String { "/export" }
    }

    /// A shutdown completes after each stream of the client delivered its terminal event (a byte
    /// stream cut by the end of the grace period, an event stream ended by the shutdown).
    func testShutdownCompletesAfterTheStreamsTerminalEvents() throws {
        server.route(.get, "/export", .stream([.text("first "), .pause(5), .text("never")]))
        server.route(.get, "/events", .eventStream([.text("data: one\n\n"), .pause(5)]))
        for round in 0..<10 {
            let client = makeClient()
            let order = LockedBox<[String]>([])
            let received = LockedBox(0)
            let bytes = client.rx.stream(Export()).subscribe(
                onNext: { _ in received.mutate { $0 += 1 } },
                onError: { _ in order.mutate { $0.append("bytes ended") } },
                onCompleted: { order.mutate { $0.append("bytes ended") } }
            )
            let events = client.rx.serverSentEvents(path: "/events").subscribe(
                onNext: { _ in received.mutate { $0 += 1 } },
                onError: { _ in order.mutate { $0.append("events ended") } },
                onCompleted: { order.mutate { $0.append("events ended") } }
            )
            defer { bytes.dispose(); events.dispose() }
            XCTAssertTrue(waitUntil(timeout: 3) { received.value >= 2 }, "round \(round): both streams started")
            let drained = DispatchSemaphore(value: 0)
            _ = client.shutdown(gracePeriod: 0.01).subscribe(onCompleted: {
                order.mutate { $0.append("shutdown completed") }
                drained.signal()
            })
            XCTAssertEqual(drained.wait(timeout: .now() + 5), .success, "round \(round)")
            XCTAssertEqual(order.value.last, "shutdown completed", "round \(round): \(order.value)")
            XCTAssertEqual(Set(order.value), ["bytes ended", "events ended", "shutdown completed"], "round \(round)")
        }
    }

    func testTheCompletionEventAndTheLogLineComeWhenTheBodyEnds() throws {
        server.route(.get, "/export", .stream([.text("first "), .pause(0.2), .text("second "), .pause(0.2), .text("end")]))
        let lines = LineCollector()
        let client = makeClient(plugins: [NetworkLoggerPlugin(sink: lines.append)])
        let completed = LockedBox<[HTTPClientEvent]>([])
        let listening = client.events.subscribe(onNext: { event in
            if case .completed = event.kind { completed.mutate { $0.append(event) } }
        })
        defer { listening.dispose() }
        let body = try client.rx.stream(Export()).toBlocking(timeout: 5).toArray().reduce(Data(), +)
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "first second end")
        XCTAssertTrue(waitUntil(timeout: 2) { completed.value.count == 1 })
        guard case .completed(let outcome, let duration, _) = completed.value.first?.kind else { return XCTFail("no completion") }
        XCTAssertEqual(outcome, .success(statusCode: 200))
        XCTAssertGreaterThanOrEqual(duration, 0.35, "reported at the head, not at the body's end")
        XCTAssertEqual(completed.value.first?.bodyBytes, 16)
        XCTAssertTrue(waitUntil(timeout: 2) { lines.lines.contains { $0.hasPrefix("<<-") } })
        let end = try XCTUnwrap(lines.lines.first { $0.hasPrefix("<<-") })
        XCTAssertTrue(end.contains("stream ended") && end.contains("16 bytes"), end)
    }

    func testAStreamLeftByItsReaderEndsAsCancelled() throws {
        server.route(.get, "/export", .stream([.text("first "), .pause(2), .text("never")]))
        let lines = LineCollector()
        let client = makeClient(plugins: [NetworkLoggerPlugin(sink: lines.append)])
        let completed = LockedBox<[HTTPClientEvent.Outcome]>([])
        let listening = client.events.subscribe(onNext: { event in
            if case .completed(let outcome, _, _) = event.kind { completed.mutate { $0.append(outcome) } }
        })
        defer { listening.dispose() }
        let first = try client.rx.stream(Export()).take(1).toBlocking(timeout: 5).toArray()
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(waitUntil(timeout: 2) { completed.value.count == 1 })
        XCTAssertEqual(completed.value, [.failure(code: .cancelled, statusCode: nil, phase: .sentWithoutResponse)])
        XCTAssertTrue(waitUntil(timeout: 2) { lines.lines.contains { $0.contains("stream failed: cancelled") } }, lines.lines.joined(separator: "\n"))
    }
}
