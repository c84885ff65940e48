import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Streamed responses through URLSession from a LoopbackHTTPServer writing over time: chunks, JSON
/// lines, Server-Sent Events with reconnects, stalls, drops, huge lines, slow readers, disposal.
final class StreamingTests: LoopbackClientTestCase {
    struct Tick: Decodable, Equatable, Sendable { let n: Int }

    private struct Path: Request {
        typealias Response = Data
        let path: String
    }

    /// Collects a stream's elements and its end.
    final class Collected<Element>: @unchecked Sendable {
        // @unchecked Sendable: every field is only touched under `lock`.
        private let lock = NSLock()
        private var stored: [Element] = []
        private var ending: Error??
        let done = DispatchSemaphore(value: 0)

        func append(_ element: Element) { lock.withLock { stored.append(element) } }
        func end(_ error: Error?) {
            lock.withLock { ending = .some(error) }
            done.signal()
        }
        var elements: [Element] { lock.withLock { stored } }
        var error: Error? { lock.withLock { ending ?? nil } }
        var ended: Bool { lock.withLock { ending != nil } }
    }

    private func collect<Element>(_ observable: Observable<Element>, timeout: TimeInterval = 5, onElement: (@Sendable (Element) -> Void)? = nil) -> (Collected<Element>, Disposable) {
        let collected = Collected<Element>()
        let subscription = observable.subscribe(
            onNext: { element in onElement?(element); collected.append(element) },
            onError: { collected.end($0) },
            onCompleted: { collected.end(nil) }
        )
        _ = collected.done.wait(timeout: .now() + timeout)
        return (collected, subscription)
    }

    // MARK: Bytes and lines

    func testChunksArriveAsTheyAreWrittenAndTheStreamCompletes() {
        server.route(.get, "/bytes", .stream([.text("hello "), .pause(0.05), .text("streaming "), .pause(0.05), .text("world")]))
        let (collected, subscription) = collect(makeClient().rx.stream(Path(path: "/bytes")))
        XCTAssertNil(collected.error)
        XCTAssertTrue(collected.ended)
        XCTAssertEqual(String(decoding: collected.elements.reduce(Data(), +), as: UTF8.self), "hello streaming world")
        XCTAssertGreaterThanOrEqual(collected.elements.count, 2, "the body was not streamed")
        subscription.dispose()
    }

    func testAnUnacceptableHeadFailsBeforeAnyBody() {
        server.route(.get, "/missing", .text("nope", status: 404))
        let (collected, subscription) = collect(makeClient().rx.stream(Path(path: "/missing")))
        XCTAssertEqual((collected.error as? HTTPClientError)?.statusCode, 404)
        XCTAssertEqual(collected.elements.count, 0)
        subscription.dispose()
    }

    func testJSONLinesArriveOneByOne() {
        server.route(.get, "/feed", .stream([.text("{\"n\":1}\n{\"n\""), .pause(0.05), .text(":2}\n\n{\"n\":3}")], contentType: "application/x-ndjson"))
        let (collected, subscription) = collect(makeClient().rx.jsonLines(path: "/feed") as Observable<Tick>)
        XCTAssertNil(collected.error)
        XCTAssertEqual(collected.elements, [Tick(n: 1), Tick(n: 2), Tick(n: 3)])
        subscription.dispose()
    }

    func testABadJSONLineIsADecodeErrorWithItsLineNumber() {
        server.route(.get, "/feed", .stream([.text("{\"n\":1}\n{\"n\":\"two\"}\n{\"n\":3}\n")]))
        let (collected, subscription) = collect(makeClient().rx.jsonLines(path: "/feed") as Observable<Tick>)
        XCTAssertEqual(collected.elements, [Tick(n: 1)])
        let error = collected.error as? HTTPClientError
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertTrue(error?.message?.contains("line 2") ?? false, String(describing: error))
        subscription.dispose()
    }

    func testAHugeLineIsAnErrorNotUnboundedMemory() {
        server.route(.get, "/huge", .stream([.repeatWrite(Data(repeating: 0x61, count: 64 * 1_024), times: 64)]))
        let options = StreamOptions(maxLineBytes: 1 << 20)
        let (collected, subscription) = collect(makeClient().rx.jsonLines(path: "/huge", options: options) as Observable<Tick>)
        XCTAssertEqual((collected.error as? HTTPClientError)?.code, .decodeError)
        subscription.dispose()
    }

    // MARK: Bounds

    func testAStalledStreamTimesOut() {
        server.route(.get, "/stall", .stream([.text("first"), .pause(2), .text("late")]))
        let started = Date()
        let (collected, subscription) = collect(makeClient().rx.stream(Path(path: "/stall"), options: StreamOptions(idleTimeout: 0.2)))
        XCTAssertEqual((collected.error as? HTTPClientError)?.code, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(collected.elements.map { String(decoding: $0, as: UTF8.self) }, ["first"])
        subscription.dispose()
    }

    func testASlowReaderOverflowsTheBufferWithATypedError() {
        server.route(.get, "/firehose", .stream([.repeatWrite(Data(count: 32 * 1_024), times: 256)]))
        let options = StreamOptions(maxBufferedBytes: 256 * 1_024)
        let (collected, subscription) = collect(makeClient().rx.stream(Path(path: "/firehose"), options: options), timeout: 10) { _ in
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTAssertEqual((collected.error as? HTTPClientError)?.code, .bufferOverflow)
        subscription.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.openConnectionCount == 0 }, "the exchange was not cancelled")
    }

    func testDisposingClosesTheConnection() {
        server.route(.get, "/endless", .stream((0..<200).flatMap { _ in [LoopbackStreamStep.text("tick\n"), .pause(0.02)] }))
        let collected = Collected<Data>()
        let subscription = makeClient().rx.stream(Path(path: "/endless")).subscribe(onNext: { collected.append($0) })
        XCTAssertTrue(waitUntil(timeout: 2) { !collected.elements.isEmpty })
        subscription.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.openConnectionCount == 0 })
    }

    func testMemoryStaysFlatWhileABigStreamPassesThrough() throws {
        // 256 MiB through a reader that keeps up.
        server.route(.get, "/big", .stream([.repeatWrite(Data(count: 256 * 1_024), times: 1_024)]))
        let before = try XCTUnwrap(residentBytes())
        let received = LockedBox(0)
        let peak = LockedBox(0)
        let done = DispatchSemaphore(value: 0)
        let failure = LockedBox<Error?>(nil)
        // The reader counts bytes and keeps none.
        let subscription = makeClient().rx.stream(Path(path: "/big")).subscribe(
            onNext: { chunk in
                let total = received.mutate { $0 += chunk.count; return $0 }
                if total % (16 << 20) < chunk.count, let now = residentBytes() { peak.mutate { $0 = max($0, now) } }
            },
            onError: { error in failure.mutate { $0 = error }; done.signal() },
            onCompleted: { done.signal() }
        )
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertNil(failure.value)
        XCTAssertEqual(received.value, 256 << 20)
        // Bounded by the 64 MiB buffer a momentary stall of the reader may fill, not by the stream.
        XCTAssertLessThan(peak.value - before, 128 << 20, "resident memory grew by \(peak.value - before) bytes")
        subscription.dispose()
    }

    // MARK: Server-Sent Events

    func testEventsReconnectAfterDropsWithLastEventID() {
        let connections = LockedBox([String]())
        server.route(.get, "/events") { request in
            let seen = connections.mutate { $0.append(request.header("Last-Event-ID") ?? "-"); return $0.count }
            switch seen {
            case 1: return .eventStream([.text("id: 1\ndata: one\n\nid: 2\ndata: two\n\n"), .drop])
            case 2: return .eventStream([.text("id: 3\ndata: three\n\n"), .drop])
            default: return .eventStream([.text("id: 4\ndata: four\n\n"), .pause(5)])
            }
        }
        let collected = Collected<ServerSentEvent>()
        let subscription = makeClient().rx.serverSentEvents(path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.05)))
            .subscribe(onNext: { collected.append($0) }, onError: { collected.end($0) })
        XCTAssertTrue(waitUntil(timeout: 5) { collected.elements.count == 4 })
        subscription.dispose()
        XCTAssertEqual(collected.elements.map(\.data), ["one", "two", "three", "four"])
        XCTAssertEqual(connections.value, ["-", "2", "3"])
        XCTAssertNil(collected.error)
    }

    func testTheServersRetryFieldSetsTheReconnectTime() {
        let times = LockedBox([Date]())
        server.route(.get, "/events") { _ in
            let count = times.mutate { $0.append(Date()); return $0.count }
            return count == 1 ? .eventStream([.text("retry: 300\ndata: x\n\n")]) : .eventStream([.text("data: y\n\n"), .pause(5)])
        }
        let collected = Collected<ServerSentEvent>()
        let subscription = makeClient().rx.serverSentEvents(path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.01)))
            .subscribe(onNext: { collected.append($0) })
        XCTAssertTrue(waitUntil(timeout: 3) { collected.elements.count == 2 })
        subscription.dispose()
        let gap = times.value[1].timeIntervalSince(times.value[0])
        XCTAssertGreaterThanOrEqual(gap, 0.29, "reconnected after \(gap) s, not the server's 300 ms")
    }

    func testNoContentStopsTheStream() {
        server.route(.get, "/events", .noContent)
        let (collected, subscription) = collect(makeClient().rx.serverSentEvents(path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.01))))
        XCTAssertTrue(collected.ended)
        XCTAssertNil(collected.error)
        XCTAssertEqual(server.requests(to: "/events").count, 1)
        subscription.dispose()
    }

    func testAWrongContentTypeOrAClientErrorIsNotRetried() {
        server.route(.get, "/json", .json("{}"))
        server.route(.get, "/forbidden", .status(403))
        for path in ["/json", "/forbidden"] {
            let (collected, subscription) = collect(makeClient().rx.serverSentEvents(path: path, reconnect: ReconnectPolicy(delay: .constant(time: 0.01))))
            XCTAssertNotNil(collected.error, path)
            XCTAssertEqual(server.requests(to: path).count, 1, path)
            subscription.dispose()
        }
    }

    func testAServerErrorReconnectsAndMaxReconnectsGivesUp() {
        server.route(.get, "/events", .status(503))
        let (collected, subscription) = collect(makeClient().rx.serverSentEvents(
            path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.01), maxReconnects: 3)
        ))
        XCTAssertEqual((collected.error as? HTTPClientError)?.statusCode, 503)
        XCTAssertEqual(server.requests(to: "/events").count, 4)
        subscription.dispose()
    }

    func testAnIdleEventStreamReconnects() {
        let count = LockedBox(0)
        server.route(.get, "/events") { _ in
            count.mutate { $0 += 1; return $0 } == 1 ? .eventStream([.text("data: a\n\n"), .pause(3)]) : .eventStream([.text("data: b\n\n"), .pause(3)])
        }
        let collected = Collected<ServerSentEvent>()
        let subscription = makeClient().rx.serverSentEvents(
            path: "/events", options: StreamOptions(idleTimeout: 0.2), reconnect: ReconnectPolicy(delay: .constant(time: 0.01))
        ).subscribe(onNext: { collected.append($0) })
        XCTAssertTrue(waitUntil(timeout: 3) { collected.elements.count == 2 })
        subscription.dispose()
        XCTAssertEqual(collected.elements.map(\.data), ["a", "b"])
    }

}
