// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// One set of cases, run against every transport (`TransportKind.allCases`) through a real
/// `HTTPClient` and a real `LoopbackHTTPServer`: what a user of the client sees must not depend on
/// which transport carries the request.
final class TransportBehaviourTests: TransportTestCase {
    func testStatusCodesAreResponses() {
        for kind in TransportKind.allCases {
            for status in [200, 201, 202, 204] {
                server.route(.get, "/s", .status(status))
                XCTAssertEqual(success(result(of: makeClient(kind).rx.request(Raw(path: "/s"))), kind)?.statusCode, status, "\(kind)")
            }
            for status in [400, 401, 404, 409, 429, 500, 503] {
                server.route(.get, "/s", .text("no", status: status))
                let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/s"))), kind)
                XCTAssertEqual(error?.code, .unacceptableStatusCode, "\(kind) \(status)")
                XCTAssertEqual(error?.statusCode, status, "\(kind)")
                XCTAssertEqual(error?.phase, .responded, "\(kind)")
                XCTAssertEqual(error?.body, Data("no".utf8), "\(kind)")
            }
        }
    }

    func testBodiesDecodeAndEmptyBodiesAreEmpty() {
        server.route(.get, "/user", .json(#"{"id":42,"name":"Ada"}"#))
        server.route(.head, "/user", .ok)
        server.route(.get, "/empty", .noContent)
        for kind in TransportKind.allCases {
            let client = makeClient(kind)
            let user: Single<User> = client.rx.requestObject(path: "/user")
            XCTAssertEqual(success(result(of: user), kind), User(id: 42, name: "Ada"), "\(kind)")
            XCTAssertEqual(success(result(of: client.rx.request(Raw(path: "/empty"))), kind)?.body, Data(), "\(kind)")
            XCTAssertEqual(success(result(of: client.rx.request(Raw(path: "/user", method: .head))), kind)?.body, Data(), "\(kind)")
        }
    }

    func testRequestBodiesAndHeadersArriveAndResponseHeadersAreSeen() throws {
        server.route(.post, "/echo", .text("ok").withHeader("X-Reply", "r1").withHeader("Set-Cookie", "a=1"))
        for kind in TransportKind.allCases {
            server.resetRequests()
            let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let request = Raw(path: "/echo", method: .post, headers: ["X-Trace": "t-1"], body: .raw(body))
            let response = success(result(of: makeClient(kind).rx.request(request)), kind)
            XCTAssertEqual(response?.value(forHTTPHeaderField: "x-reply"), "r1", "\(kind)")
            let seen = try XCTUnwrap(server.requests.last, "\(kind)")
            XCTAssertEqual(seen.body, body, "\(kind)")
            XCTAssertEqual(seen.header("X-Trace"), "t-1", "\(kind)")
            XCTAssertEqual(seen.header("Content-Type"), "application/octet-stream", "\(kind)")
        }
    }

    func testRepeatedResponseFieldsAreKeptOnAsyncHTTPClientAndCombinedByURLSession() {
        let fields: [(String, String)] = [
            ("Content-Type", "text/plain"), ("Set-Cookie", "a=1; Path=/"), ("Link", "</p/2>; rel=next"),
            ("WWW-Authenticate", #"Basic realm="api""#), ("Set-Cookie", "b=2; Path=/"), ("WWW-Authenticate", "Bearer"),
            ("Link", "</p/9>; rel=last"),
        ]
        server.route(.get, "/multi", LoopbackHTTPResponse(status: 200, headers: LoopbackHTTPHeaders(fields), body: Data("ok".utf8)))
        server.route(.get, "/challenge", LoopbackHTTPResponse(status: 401, headers: LoopbackHTTPHeaders(fields), body: Data("no".utf8)))
        for kind in TransportKind.allCases {
            let client = makeClient(kind)
            let response = success(result(of: client.rx.response(RawText(path: "/multi"))), kind)
            let error = failure(result(of: client.rx.request(RawText(path: "/challenge"))), kind)
            // Either way the subscript reads a list field whole, and the single-valued one as sent.
            XCTAssertEqual(response?.headers["WWW-Authenticate"], #"Basic realm="api", Bearer"#, "\(kind)")
            XCTAssertEqual(response?.headers["link"], "</p/2>; rel=next, </p/9>; rel=last", "\(kind)")
            XCTAssertEqual(response?.headers["Content-Type"], "text/plain", "\(kind)")
            XCTAssertEqual(error?.headers?["www-authenticate"], #"Basic realm="api", Bearer"#, "\(kind)")
            switch kind {
            case .asyncHTTPClient:
                // Every line as it came: the cookies and the challenges stay apart.
                XCTAssertEqual(response?.headers.values(for: "Set-Cookie"), ["a=1; Path=/", "b=2; Path=/"])
                XCTAssertEqual(response?.headers.values(for: "WWW-Authenticate"), [#"Basic realm="api""#, "Bearer"])
                XCTAssertEqual(error?.headers?.values(for: "WWW-Authenticate"), [#"Basic realm="api""#, "Bearer"])
                XCTAssertEqual(response?.headers["Set-Cookie"], "a=1; Path=/", "never combined")
            case .urlSession:
                // Foundation hands over one combined line per name; the lines cannot be told apart.
                XCTAssertEqual(response?.headers.values(for: "Set-Cookie"), ["a=1; Path=/, b=2; Path=/"])
            }
        }
    }

    func testPathsAndQueriesArriveExactlyAsEncoded() throws {
        server.route(.get, "/users/a b/ü", .text("ok"))
        let parameters: [String: Any?] = ["q": "a b&c=d", "name": "Zoë", "plus": "1+1", "slash": "x/y?z", "empty": "", "dropped": nil]
        for kind in TransportKind.allCases {
            server.resetRequests()
            let single: Single<String> = makeClient(kind).rx.request(RawText(path: "/users/a b/ü"))
            XCTAssertEqual(success(result(of: single), kind), "ok", "\(kind)")
            let objects: Single<JSONValue> = makeClient(kind).rx.requestObject(path: "/echo", parameters: parameters)
            _ = result(of: objects)
            let seen = try XCTUnwrap(server.requests(to: "/echo").last, "\(kind)")
            XCTAssertEqual(seen.queryValue("q"), "a b&c=d", "\(kind)")
            XCTAssertEqual(seen.queryValue("name"), "Zoë", "\(kind)")
            XCTAssertEqual(seen.queryValue("plus"), "1+1", "\(kind)")
            XCTAssertEqual(seen.queryValue("slash"), "x/y?z", "\(kind)")
            XCTAssertEqual(seen.queryValue("empty"), "", "\(kind)")
            XCTAssertNil(seen.queryValue("dropped"), "\(kind)")
        }
    }

    func testHeadersWithCRLFAreRefusedBeforeSending() {
        for kind in TransportKind.allCases {
            for value in ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"] {
                let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/x", headers: ["X-Bad": value]))), kind)
                XCTAssertEqual(error?.code, .invalidRequest, "\(kind)")
                XCTAssertEqual(error?.phase, .notSent, "\(kind)")
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testATimeOutFailsAsTimedOutAfterSending() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 0.6))
        for kind in TransportKind.allCases {
            let started = Date()
            let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/slow", timeout: 0.15))), kind)
            XCTAssertEqual(error?.code, .timedOut, "\(kind)")
            XCTAssertEqual(error?.phase, .sentWithoutResponse, "\(kind)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 0.55, "\(kind): the time-out did not hold")
        }
    }

    func testATricklingBodyTimesOutOverTheWholeRequest() {
        // A byte every 50 ms never trips an idle time-out; the whole-request time-out holds.
        server.route(.get, "/trickle", LoopbackHTTPResponse.text(String(repeating: "x", count: 40)).trickled(delayPerByte: 0.05))
        for kind in TransportKind.allCases {
            let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/trickle", timeout: 0.3))), kind)
            XCTAssertEqual(error?.code, .timedOut, "\(kind)")
            XCTAssertEqual(error?.phase, .responded, "\(kind): the head had arrived")
        }
    }

    func testDisposingCancelsTheExchangeAndDeliversNothing() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 0.3))
        for kind in TransportKind.allCases {
            let delivered = LockedBox(0)
            let client = makeClient(kind)
            let subscription = client.rx.request(RawText(path: "/slow")).subscribe(
                onSuccess: { _ in delivered.mutate { $0 += 1 } }, onFailure: { _ in delivered.mutate { $0 += 1 } }
            )
            XCTAssertEqual(server.waitForRequests(count: 1).count, 1, "\(kind)")
            subscription.dispose()
            Thread.sleep(forTimeInterval: 0.4)
            XCTAssertEqual(delivered.value, 0, "\(kind): an event after dispose")
            server.resetRequests()
        }
    }

    func testARefusedPortWasNotSent() throws {
        let closed = LoopbackHTTPServer()
        try closed.start()
        let url = closed.baseURL
        closed.stop()
        for kind in TransportKind.allCases {
            let error = failure(result(of: makeClient(kind, baseURL: url).rx.request(RawText(path: "/x", method: .post))), kind)
            XCTAssertEqual(error?.code, .transport, "\(kind)")
            XCTAssertEqual(error?.phase, .notSent, "\(kind)")
        }
    }

    func testADroppedConnectionIsATransportFailure() {
        server.route(.post, "/drop", .dropConnection)
        for kind in TransportKind.allCases {
            server.resetRequests()
            let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/drop", method: .post))), kind)
            XCTAssertEqual(error?.code, .transport, "\(kind)")
            XCTAssertEqual(error?.phase, .sentWithoutResponse, "\(kind): the server read the request")
            XCTAssertEqual(server.requests(to: "/drop").count, 1, "\(kind)")
        }
    }

    /// A connection lost inside the body (a server killed, a stream dropped) is a transport failure
    /// on both, so that streams reconnect and retries see it as one — not a malformed answer.
    func testABodyCutShortIsATransportFailure() {
        server.route(.get, "/short", LoopbackHTTPResponse.text(String(repeating: "y", count: 10_000)).closingConnection(afterBodyBytes: 100))
        server.route(.get, "/short-chunked", LoopbackHTTPResponse.text(String(repeating: "y", count: 10_000)).chunked(chunkSize: 50).closingConnection(afterBodyBytes: 100))
        for kind in TransportKind.allCases {
            for path in ["/short", "/short-chunked"] {
                let error = failure(result(of: makeClient(kind).rx.request(RawText(path: path))), kind)
                XCTAssertEqual(error?.code, .transport, "\(kind) \(path): \(String(describing: error))")
                XCTAssertNotEqual(error?.phase, .notSent, "\(kind) \(path)")
            }
        }
    }

    func testBrokenFramingIsAnInvalidResponse() {
        server.route(.get, "/twice", .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\nhello"))
        for kind in TransportKind.allCases {
            let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/twice"))), kind)
            XCTAssertTrue([.invalidResponse, .transport].contains(error?.code), "\(kind): \(String(describing: error))")
        }
    }

    func testSixtyFourInFlightAllSucceed() {
        server.route(.get, "/user", .json(#"{"id":1,"name":"n"}"#))
        for kind in TransportKind.allCases {
            server.resetRequests()
            let client = makeClient(kind)
            let users: [Single<User>] = (0..<64).map { _ in client.rx.requestObject(path: "/user") }
            let all = success(result(of: Single.zip(users), timeout: 20), kind)
            XCTAssertEqual(all?.count, 64, "\(kind)")
            XCTAssertEqual(server.requests(to: "/user").count, 64, "\(kind)")
        }
    }

    func testLargeBodiesArriveWholeAndTheLimitHolds() {
        let big = Data((0..<(8 * 1_024 * 1_024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.route(.get, "/big", .data(big))
        for kind in TransportKind.allCases {
            XCTAssertEqual(success(result(of: makeClient(kind).rx.request(Raw(path: "/big"))), kind)?.body, big, "\(kind)")
            let limited = makeClient(kind, maxResponseBodySize: 1_024 * 1_024)
            let error = failure(result(of: limited.rx.request(Raw(path: "/big"))), kind)
            XCTAssertEqual(error?.code, .responseTooLarge, "\(kind)")
        }
    }

    func testGzipIsDecodedAndABombStopsAtTheLimit() {
        server.route(.get, "/small", .gzipBomb(inflatedSize: 10_000))
        server.route(.get, "/bomb", .gzipBomb(inflatedSize: 64 * 1_024 * 1_024))
        for kind in TransportKind.allCases {
            XCTAssertEqual(success(result(of: makeClient(kind).rx.request(Raw(path: "/small"))), kind)?.body, Data(count: 10_000), "\(kind)")
            let error = failure(result(of: makeClient(kind, maxResponseBodySize: 1_024 * 1_024).rx.request(Raw(path: "/bomb"))), kind)
            XCTAssertEqual(error?.code, .responseTooLarge, "\(kind)")
        }
    }

    func testStreamsArriveInChunksAndEnd() {
        server.route(.get, "/stream", .stream([.text("one,"), .pause(0.05), .text("two,"), .pause(0.05), .text("three")]))
        for kind in TransportKind.allCases {
            let chunks = try? makeClient(kind).rx.stream(Chunks(path: "/stream")).toBlocking(timeout: 5).toArray()
            XCTAssertEqual(chunks.map { String(decoding: $0.reduce(Data(), +), as: UTF8.self) }, "one,two,three", "\(kind)")
            XCTAssertGreaterThan(chunks?.count ?? 0, 1, "\(kind): the body was not streamed")
        }
    }

    /// AsyncHTTPClient can pause its reads: a reader slower than the network slows the network
    /// (the stream's demand), so a 4 MiB body passes through a 128 KiB buffer whole, where
    /// URLSession, which cannot pause, overflows it.
    func testASlowReaderSlowsAsyncHTTPClientInsteadOfOverflowing() {
        var body = Data(capacity: 4 << 20)
        for index in 0..<(4 << 20) / 4 {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: index).bigEndian) { body.append(contentsOf: $0) }
        }
        server.route(.get, "/firehose", LoopbackHTTPResponse.data(body))
        let options = StreamOptions(maxBufferedBytes: 128 << 10)
        for kind in TransportKind.allCases {
            let received = LockedBox(Data())
            let result = Result {
                try makeClient(kind).rx.stream(Chunks(path: "/firehose"), options: options)
                    .do(onNext: { chunk in
                        received.mutate { $0.append(chunk) }
                        Thread.sleep(forTimeInterval: 0.0005)
                    })
                    .toBlocking(timeout: 20).toArray()
            }
            switch kind {
            case .asyncHTTPClient:
                XCTAssertNoThrow(try result.get(), "\(kind)")
                XCTAssertEqual(received.value, body, "\(kind): whole and in order")
            case .urlSession:
                guard case .failure(let error) = result else { return XCTFail("\(kind): no overflow") }
                XCTAssertEqual((error as? HTTPClientError)?.code, .bufferOverflow, "\(kind)")
            }
        }
    }
}
#endif
