import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

final class URLSessionTransportTests: LoopbackClientTestCase {
    func testNoCookiesAreKeptOrSentByDefault() {
        server.route(.get, "/login", LoopbackHTTPResponse.json("{}").withHeader("Set-Cookie", "session=abc; Path=/"))
        server.route(.get, "/me", .json("{}"))
        let client = makeClient()
        let login: Single<JSONValue> = client.rx.requestObject(path: "/login")
        let me: Single<JSONValue> = client.rx.requestObject(path: "/me")
        XCTAssertNotNil(success(result(of: login)))
        XCTAssertNotNil(success(result(of: me)))
        XCTAssertNil(server.requests.last?.header("Cookie"))
    }

    func testURLSessionsOwnTimeoutsAreWholeSecondsOneLaterThanOurs() {
        XCTAssertEqual(URLSessionTransport.sessionTimeout(0.25), 2)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(1.5), 3)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(15), 16)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(.infinity), 1_000_000_001)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(1e300), 1_000_000_001)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(.nan), 16)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(-3), 16)
    }

    /// A stream whose delegate queue is blocked while the body arrives: past 512 waiting chunks
    /// the exchange stops reading, still hands over every chunk received, in order, and only then
    /// fails with `.bufferOverflow`; the connection is closed.
    func testAStreamWhoseDelegateQueueFallsBehindStopsReadingButHandsOverWhatItReceived() throws {
        var body = Data(capacity: 24 << 20)
        for index in 0..<(24 << 20) / 4 {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: index).bigEndian) { body.append(contentsOf: $0) }
        }
        server.route(.get, "/firehose", LoopbackHTTPResponse.data(body).chunked(chunkSize: 64 << 10, delayBetweenChunks: 0.001))
        let transport = URLSessionTransport()
        let received = LockedBox(Data())
        let ending = LockedBox<Error?>(nil)
        let done = expectation(description: "stream ended")
        var request = HTTPTransportRequest(url: server.url("/firehose"))
        request.timeoutInterval = 10
        let exchange = transport.stream(request, options: .standard) { part in
            switch part {
            case .success(.head):
                transport.blockDelegateQueueUntilPastTheBacklogBound()
            case .success(.body(let chunk)):
                received.mutate { $0.append(chunk) }
            case .success(.end):
                done.fulfill()
            case .failure(let error):
                ending.mutate { $0 = error }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        exchange.dispose()
        let failure = try XCTUnwrap(ending.value as? HTTPClientError, "the stream ended without stopping")
        XCTAssertEqual(failure.code, .bufferOverflow)
        XCTAssertEqual(failure.phase, .responded)
        let bytes = received.value
        XCTAssertGreaterThan(bytes.count, URLSessionExchange.maxPendingCallbacks(for: .standard) * 1_024, "the waiting chunks were handed over")
        XCTAssertLessThan(bytes.count, body.count)
        XCTAssertEqual(bytes, body.prefix(bytes.count), "in order, nothing skipped")
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.openConnectionCount == 0 }, "the task was not cancelled")
        transport.shutdown()
    }

    func testTransportUsedDirectly() throws {
        server.route(.get, "/raw", LoopbackHTTPResponse.text("hi", status: 418))
        let transport = URLSessionTransport()
        let box = ResultBox<HTTPResponse>()
        let done = expectation(description: "response")
        var request = HTTPTransportRequest(url: server.url("/raw"))
        request.timeoutInterval = 2
        let exchange = transport.send(request, options: .standard) { result in
            box.set(result.mapError { $0 as? HTTPClientError ?? HTTPClientError(.transport, underlying: $0) })
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        let response = try XCTUnwrap(box.value?.get())
        XCTAssertEqual(response.statusCode, 418)
        XCTAssertEqual(response.body, Data("hi".utf8))
        XCTAssertEqual(response.value(forHTTPHeaderField: "content-type"), "text/plain; charset=utf-8")
    }

    /// The head is converted from Foundation's once, when it arrives; the answer, a 401 (the
    /// challenge path on Linux) and a refused oversized body all carry the server's headers.
    func testEveryEndCarriesTheHeadersOfTheHead() throws {
        server.route(.get, "/ok", LoopbackHTTPResponse.json(#"{"a":1}"#).withHeader("X-Trace", "t-1"))
        server.route(.get, "/denied", LoopbackHTTPResponse.json("{}", status: 401)
            .withHeader("WWW-Authenticate", #"Bearer realm="api""#).withHeader("X-Trace", "t-2"))
        server.route(.get, "/big", LoopbackHTTPResponse.text(String(repeating: "x", count: 4_096)).withHeader("X-Trace", "t-3"))
        let transport = URLSessionTransport()
        func send(_ path: String, limit: Int = HTTPTransportOptions.defaultMaxResponseBodySize) -> Result<HTTPResponse, HTTPClientError>? {
            let box = ResultBox<HTTPResponse>()
            let done = expectation(description: path)
            var request = HTTPTransportRequest(url: server.url(path))
            request.timeoutInterval = 2
            let exchange = transport.send(request, options: HTTPTransportOptions(maxResponseBodySize: limit)) { result in
                box.set(result.mapError { $0 as? HTTPClientError ?? HTTPClientError(.transport, underlying: $0) })
                done.fulfill()
            }
            wait(for: [done], timeout: 5)
            exchange.dispose()
            return box.value
        }
        let ok = try XCTUnwrap(send("/ok")?.get())
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(ok.value(forHTTPHeaderField: "x-trace"), "t-1")
        XCTAssertEqual(ok.url, server.url("/ok"))
        XCTAssertEqual(ok.body, Data(#"{"a":1}"#.utf8))

        let denied = try XCTUnwrap(send("/denied")?.get())
        XCTAssertEqual(denied.statusCode, 401)
        XCTAssertEqual(denied.value(forHTTPHeaderField: "X-Trace"), "t-2")
        XCTAssertEqual(denied.value(forHTTPHeaderField: "www-authenticate"), #"Bearer realm="api""#)

        guard case .failure(let tooLarge)? = send("/big", limit: 1_024) else { return XCTFail("a 4 KiB body passed a 1 KiB limit") }
        XCTAssertEqual(tooLarge.code, .responseTooLarge)
        XCTAssertEqual(tooLarge.statusCode, 200)
        XCTAssertEqual(tooLarge.headers?["x-trace"], "t-3")
    }

    /// A transport made by the caller (its delegate queue its own, not a client's) answers while
    /// every thread of the global pool is held, as a daemon's callers waiting for their answers may
    /// hold them. Its delegate ran on Foundation's default operation queue, on that pool, before:
    /// no answer until a time-out freed a thread (a fleet's replicas, 5 s without answers).
    func testACallerMadeTransportAnswersWhileTheGlobalPoolIsHeld() throws {
        server.route(.get, "/ok", .text("ok"))
        let transport = URLSessionTransport(timeout: 15)
        let releasePools = holdGlobalPools()
        defer {
            releasePools()
            transport.shutdown()
        }
        let box = ResultBox<HTTPResponse>()
        let done = expectation(description: "answer")
        var request = HTTPTransportRequest(url: server.url("/ok"))
        request.timeoutInterval = 5
        let exchange = transport.send(request, options: .standard) { result in
            box.set(result.mapError { $0 as? HTTPClientError ?? HTTPClientError(.transport, underlying: $0) })
            done.fulfill()
        }
        defer { exchange.dispose() }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(try box.value?.get().statusCode, 200)
    }
}
