import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// The client's own request value: what it holds, how it meets Foundation, and that transports and
/// interceptors written for `URLRequest` keep working through a real server.
final class HTTPTransportRequestTests: LoopbackClientTestCase {
    private let url = URL(string: "https://api.example.com/orders?token=s3cret&page=2")!

    func testURLRequestSpellingReadsAndWritesTheValue() {
        var request = HTTPTransportRequest(url: url)
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.timeoutInterval, 60)
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("text/plain", forHTTPHeaderField: "content-type")
        XCTAssertEqual(request.method, .post)
        XCTAssertEqual(request.body, .bytes(Data("{}".utf8)))
        XCTAssertEqual(request.headers.values(for: "Content-Type"), ["text/plain"], "set replaces, in any case")
        XCTAssertEqual(request.value(forHTTPHeaderField: "CONTENT-TYPE"), "text/plain")
        request.setValue(nil, forHTTPHeaderField: "Content-Type")
        request.httpBody = nil
        XCTAssertTrue(request.headers.isEmpty)
        XCTAssertEqual(request.body, .empty)
        XCTAssertNil(request.httpBody)
    }

    func testFoundationConversionKeepsEveryFieldAndJoinsRepeatedLines() throws {
        var request = HTTPTransportRequest(
            method: .put, url: url, headers: ["Accept": "a/b", "X-Tag": "one", "x-tag": "two"], body: .bytes(Data([1, 2])),
            timeoutInterval: 7
        )
        request.headers.add(name: "X-Tag", value: "three")
        let foundation = request.urlRequest
        XCTAssertEqual(foundation.httpMethod, "PUT")
        XCTAssertEqual(foundation.url, url)
        XCTAssertEqual(foundation.timeoutInterval, 7)
        XCTAssertEqual(foundation.httpBody, Data([1, 2]))
        XCTAssertEqual(foundation.value(forHTTPHeaderField: "X-Tag"), "one, two, three", "a URLRequest holds one value per name")
        XCTAssertEqual(foundation.value(forHTTPHeaderField: "Accept"), "a/b")

        let back = try HTTPTransportRequest(foundation)
        XCTAssertEqual(back.method, .put)
        XCTAssertEqual(back.url, url)
        XCTAssertEqual(back.timeoutInterval, 7)
        XCTAssertEqual(back.body, .bytes(Data([1, 2])))
        XCTAssertEqual(back.headers["x-tag"], "one, two, three")
    }

    func testAFoundationRequestThisValueCannotCarryIsATypedError() {
        var withoutURL = URLRequest(url: url)
        withoutURL.url = nil
        XCTAssertThrowsError(try HTTPTransportRequest(withoutURL)) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest)
        }
        var streamed = URLRequest(url: url)
        streamed.httpBodyStream = InputStream(data: Data([1]))
        XCTAssertThrowsError(try HTTPTransportRequest(streamed)) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest)
            XCTAssertEqual((error as? HTTPClientError)?.phase, .notSent)
        }
    }

    func testTheDescriptionRedactsSecrets() {
        let request = HTTPTransportRequest(url: url, headers: ["Authorization": "Bearer abc123", "Accept": "a/b"])
        let text = request.description
        XCTAssertFalse(text.contains("abc123"), text)
        XCTAssertFalse(text.contains("s3cret"), text)
        XCTAssertTrue(text.contains("a/b"), text)
    }

    func testAnInterceptorsRepeatedFieldReachesTheServer() {
        server.route(.get, "/x", .text("ok"))
        let client = HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5, interceptors: [Tagger()])
        )
        XCTAssertEqual(success(result(of: client.rx.request(Text(path: "/x")))), "ok")
        // URLSession hands a URLRequest one value per name: the lines arrive joined.
        XCTAssertEqual(server.requests(to: "/x").first?.header("X-Tag"), "a, b")
    }

    // MARK: Written before HTTPTransportRequest

    @available(*, deprecated, message: "exercises the URLRequest requirements on purpose")
    func testATransportAndAnInterceptorWrittenForURLRequestStillWork() {
        server.route(.get, "/x", .text("ok"))
        let transport = FoundationOnlyTransport()
        let client = HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5, interceptors: [FoundationSigner()]), transport: transport
        )
        XCTAssertEqual(success(result(of: client.rx.request(Text(path: "/x")))), "ok")
        XCTAssertEqual(server.requests(to: "/x").first?.header("X-Signature"), "v1", "the interceptor's URLRequest went out")
        XCTAssertEqual(transport.sent.withLock { $0 }, 1, "through the transport's URLRequest send")
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}

/// Adds two lines of one field.
private struct Tagger: HTTPInterceptor {
    func prepare(
        _ request: HTTPTransportRequest, for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        var tagged = request
        tagged.headers.add(name: "X-Tag", value: "a")
        tagged.headers.add(name: "X-Tag", value: "b")
        completion(.proceed(tagged))
        return nil
    }
}

/// An interceptor as written before `HTTPTransportRequest`.
@available(*, deprecated, message: "implements the URLRequest requirement on purpose")
private struct FoundationSigner: HTTPInterceptor {
    func prepare(
        _ request: URLRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        var signed = request
        signed.setValue("v1", forHTTPHeaderField: "X-Signature")
        completion(.proceed(signed))
        return nil
    }
}

/// A transport as written before `HTTPTransportRequest`: only the Foundation `send`.
@available(*, deprecated, message: "implements the URLRequest requirement on purpose")
private final class FoundationOnlyTransport: HTTPTransport {
    let sent = Mutex(0)
    private let inner = URLSessionTransport(timeout: 5)

    func send(_ request: URLRequest, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Disposable {
        sent.withLock { $0 += 1 }
        return inner.send(request, completion: completion)
    }
}
