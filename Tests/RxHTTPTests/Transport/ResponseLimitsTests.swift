import Foundation
import RxCore
@_spi(TransportSupport) @testable import RxHTTP
import RxTesting
import XCTest

/// What a hostile server can send through URLSession: bodies over the limit (gzip bombs too),
/// broken framing, truncated bodies, garbage status lines. Each ends in a typed error, quickly,
/// with memory bounded and the connection not reused.
final class ResponseLimitsTests: LoopbackClientTestCase {
    /// A cancelled half-gigabyte transfer is released once URLSession has drained what it had
    /// queued for the delegate, which takes longer than usual on a loaded machine.
    override var resourceSettleTimeout: TimeInterval { 10 }

    private func client(maxBody: Int = HTTPTransportOptions.defaultMaxResponseBodySize, timeout: TimeInterval = 5) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: timeout, maxResponseBodySize: maxBody))
    }

    private func fetch(_ client: HTTPClient, _ path: String, method: HTTPMethod = .get) -> Result<String, HTTPClientError>? {
        result(of: client.rx.request(RawText(path: path, method: method)))
    }

    // MARK: Size

    func testABodyOverTheLimitFails() {
        server.route(.get, "/big", .data(Data(count: 300_000)).chunked(chunkSize: 8_192))
        let error = failure(fetch(client(maxBody: 100_000), "/big"))
        XCTAssertEqual(error?.code, .responseTooLarge)
        XCTAssertEqual(error?.phase, .responded)
        XCTAssertEqual(error?.statusCode, 200)
    }

    func testAnAnnouncedLengthOverTheLimitFailsAtOnce() {
        server.route(.get, "/big", .data(Data(count: 300_000)))
        let error = failure(fetch(client(maxBody: 1_000), "/big"))
        XCTAssertEqual(error?.code, .responseTooLarge)
        XCTAssertTrue(error?.message?.contains("300000") ?? false, String(describing: error))
    }

    func testABodyAtTheLimitIsAccepted() {
        server.route(.get, "/exact", .data(Data(count: 1_000)))
        XCTAssertEqual(success(fetch(client(maxBody: 1_000), "/exact"))?.utf8.count, 1_000)
    }

    func testAGzipBombStopsAtTheLimitWithBoundedMemory() throws {
        // 128 MiB of zeros in ~0.8 MB of gzip; the limit counts decoded bytes.
        server.route(.get, "/bomb", .gzipBomb(inflatedSize: 128 * 1_024 * 1_024))
        let before = residentBytes()
        let error = failure(fetch(client(maxBody: 4 * 1_024 * 1_024), "/bomb"))
        XCTAssertEqual(error?.code, .responseTooLarge)
        if let before, let after = residentBytes() {
            XCTAssertLessThan(after - before, 64 * 1_024 * 1_024, "resident memory grew by \(after - before) bytes")
        }
    }

    func testAGzipBodyUnderTheLimitIsDecoded() {
        server.route(.get, "/small", .gzipBomb(inflatedSize: 10_000))
        XCTAssertEqual(success(fetch(client(maxBody: 20_000), "/small"))?.utf8.count, 10_000)
    }

    func testDisposingALargeTransferReturnsPromptly() throws {
        server.route(.get, "/bomb", .gzipBomb(inflatedSize: 512 * 1_024 * 1_024))
        let client = client(maxBody: HTTPTransportOptions.maxResponseBodySizeLimit)
        let subscription = client.rx.request(RawText(path: "/bomb")).subscribe(onSuccess: { _ in }, onFailure: { _ in })
        // Let the transfer get going: the response head arrives first.
        XCTAssertTrue(waitUntil(timeout: 3) { self.server.requests(to: "/bomb").count == 1 })
        Thread.sleep(forTimeInterval: 0.1)
        let started = DispatchTime.now().uptimeNanoseconds
        subscription.dispose()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        XCTAssertLessThan(elapsed, 0.05, "dispose blocked for \(elapsed) s")
    }

    // MARK: Framing

    func testConflictingContentLengthsAreAnError() {
        server.route(.get, "/dup", .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\nhelloworld"))
        let error = failure(fetch(client(), "/dup"))
        XCTAssertEqual(error?.code, .invalidResponse)
        XCTAssertEqual(error?.phase, .responded)
    }

    func testAConnectionWithBrokenFramingIsNotReused() {
        // Keep-alive response whose framing is broken: the next request must not ride on it.
        var response = LoopbackHTTPResponse.text("hello")
        response.headers.add(name: "Content-Length", value: "5")
        response.headers.add(name: "Content-Length", value: "7")
        server.route(.get, "/dup", response)
        server.route(.get, "/next", .text("next"))
        let client = client()
        XCTAssertEqual(failure(fetch(client, "/dup"))?.code, .invalidResponse)
        let connectionsBefore = server.acceptedConnectionCount
        XCTAssertEqual(success(fetch(client, "/next")), "next")
        XCTAssertEqual(server.acceptedConnectionCount, connectionsBefore + 1, "the broken connection was reused")
    }

    func testContentLengthWithTransferEncodingIsAnError() {
        server.route(.get, "/both", .raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        ))
        XCTAssertEqual(failure(fetch(client(), "/both"))?.code, .invalidResponse)
    }

    func testAnAbsurdContentLengthIsAnError() {
        server.route(.get, "/absurd", .raw("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nshort"))
        XCTAssertEqual(failure(fetch(client(), "/absurd"))?.code, .invalidResponse)
    }

    func testABodyShorterThanAnnouncedIsAnError() {
        server.route(.get, "/short", .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
        let error = failure(fetch(client(), "/short"))
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.phase, .responded)
    }

    func testAGarbageStatusLineIsTheServersFault() {
        for raw in ["GARBAGE LINE\r\n\r\nhello", "hello world, HTTP/0.9 style"] {
            server.route(.get, "/garbage", .raw(raw))
            let error = failure(fetch(client(), "/garbage"))
            XCTAssertEqual(error?.code, .invalidResponse, raw)
            XCTAssertEqual(error?.phase, .sentWithoutResponse, raw)
        }
    }

    func testFramingRules() throws {
        func framing(_ headers: [String: String], status: Int = 200, method: String = "GET") throws -> ResponseFraming {
            try ResponseFraming.check(headers: headers, statusCode: status, method: method).get()
        }
        XCTAssertEqual(try framing(["Content-Length": "12"]).contentLength, 12)
        XCTAssertEqual(try framing(["content-length": "7, 7"]).contentLength, 7)
        XCTAssertNil(try framing([:]).contentLength)
        for bad in ["5, 10", "-1", "1e3", "", "0x10", "99999999999999999999", " 5 5"] {
            XCTAssertThrowsError(try framing(["Content-Length": bad]), bad)
        }
        XCTAssertThrowsError(try framing(["Content-Length": "3", "Transfer-Encoding": "chunked"]))
        XCTAssertTrue(try framing(["Content-Length": "3"], method: "HEAD").hasNoBody)
        XCTAssertTrue(try framing(["Content-Length": "3"], method: "head").hasNoBody)
        XCTAssertEqual(try framing(["CONTENT-LENGTH": " \t12\t "]).contentLength, 12, "names fold case; spaces and tabs trim")
        XCTAssertEqual(try framing(["Content-Length": "999999999999999999"]).contentLength, 999_999_999_999_999_999, "18 digits fit")
        XCTAssertThrowsError(try framing(["Content-Length": "1\u{660}"]), "a non-ASCII digit")
        XCTAssertTrue(try framing(["Content-Length": "3", "Content-Encoding": "gzip"]).isContentEncoded)
    }

}

extension ResponseFraming {
    /// The framing check as a `Result`, so tests can use `XCTAssertThrowsError`.
    static func check(headers: [String: String], statusCode: Int, method: String?) -> Result<ResponseFraming, HTTPClientError> {
        do throws(HTTPClientError) {
            return .success(try validate(headers: HTTPHeaders(headers), statusCode: statusCode, method: method, url: nil))
        } catch {
            return .failure(error)
        }
    }
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return true
}
