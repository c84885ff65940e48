import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Who may be sent twice: the method × phase × declaration table, then real sockets — a POST is
/// never repeated unkeyed once sent, and a keyed one repeats with the same key.
final class IdempotencyTests: LoopbackClientTestCase {
    private let methods: [HTTPMethod] = [.get, .head, .put, .delete, .options, .trace, .post, .patch]
    private let idempotent: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    private func error(_ phase: HTTPClientError.Phase) -> HTTPClientError {
        switch phase {
        case .notSent: return HTTPClientError(.transport, phase: .notSent)
        case .sentWithoutResponse: return HTTPClientError(.timedOut, phase: .sentWithoutResponse)
        case .responded: return HTTPClientError(.unacceptableStatusCode, statusCode: 503)
        }
    }

    func testTheTableOfMethodPhaseAndDeclaration() {
        let policy = RetryPolicy()
        for method in methods {
            for declaration in Idempotency.allCases {
                for phase in HTTPClientError.Phase.allCases {
                    let expected: Bool
                    switch (phase, declaration) {
                    case (.notSent, _): expected = true
                    case (_, .idempotent), (_, .keyed): expected = true
                    case (_, .notIdempotent): expected = false
                    case (_, .byMethod): expected = idempotent.contains(method)
                    }
                    XCTAssertEqual(
                        policy.shouldRetry(error(phase), method: method, idempotency: declaration), expected,
                        "\(method) \(declaration) \(phase)"
                    )
                }
            }
        }
    }

    func testNeverRetriedWhateverTheDeclaration() {
        let policy = RetryPolicy()
        for declaration in Idempotency.allCases {
            XCTAssertFalse(policy.shouldRetry(HTTPClientError(.cancelled), method: .get, idempotency: declaration))
            XCTAssertFalse(policy.shouldRetry(HTTPClientError(.shutdown), method: .get, idempotency: declaration))
            XCTAssertFalse(policy.shouldRetry(HTTPClientError(.invalidRequest), method: .get, idempotency: declaration))
            XCTAssertFalse(policy.shouldRetry(HTTPClientError(.unacceptableStatusCode, statusCode: 404), method: .get, idempotency: declaration))
        }
    }

    // MARK: Real sockets

    private func client(attempts: Int = 3, onRetry: (@Sendable (RetryNotification<HTTPClientError>) -> Void)? = nil) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(
            timeout: 2, retryPolicy: RetryPolicy(maxAttempts: attempts, delay: .constant(time: 0.01), onRetry: onRetry)
        ))
    }

    private func post(_ client: HTTPClient, idempotency: Idempotency = .byMethod) -> Result<String, HTTPClientError>? {
        result(of: client.rx.request(RawText(path: "/orders", method: .post, idempotency: idempotency)))
    }

    func testAPostNotSentIsRetried() {
        let port = server.port
        server.stop()
        server.route(.post, "/orders", .text("created"))
        // The retry restarts the server, so the second attempt connects: deterministic, no sleep.
        let restart: @Sendable (RetryNotification<HTTPClientError>) -> Void = { [server] _ in try? server.start() }
        let client = HTTPClient(baseURL: server.url(""), configuration: .init(
            timeout: 2, retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.01), retriesWhenReachable: false, onRetry: restart)
        ))
        XCTAssertEqual(server.port, port)
        XCTAssertEqual(success(post(client)), "created")
        XCTAssertEqual(server.requests(to: "/orders").count, 1)
    }

    func testAPostDroppedAfterSendingIsNotRepeated() {
        server.route(.post, "/orders", responses: [.dropConnection, .text("created")])
        let error = failure(post(client()))
        XCTAssertEqual(error?.phase, .sentWithoutResponse)
        XCTAssertEqual(error?.attempts, 1)
        XCTAssertEqual(server.requests(to: "/orders").count, 1, "the POST was repeated")
    }

    func testAPostDroppedOnAcceptIsNotRepeated() {
        server.route(.post, "/orders", .text("created"))
        server.dropConnectionsOnAccept(1)
        XCTAssertEqual(failure(post(client()))?.phase, .sentWithoutResponse)
        XCTAssertEqual(server.requests(to: "/orders").count, 0)
    }

    func testAPostAnswered503IsNotRepeated() {
        server.route(.post, "/orders", responses: [.status(503), .text("created")])
        XCTAssertEqual(failure(post(client()))?.statusCode, 503)
        XCTAssertEqual(server.requests(to: "/orders").count, 1)
    }

    func testADeclaredIdempotentPostIsRepeated() {
        server.route(.post, "/orders", responses: [.dropConnection, .status(503), .text("created")])
        XCTAssertEqual(success(post(client(), idempotency: .idempotent)), "created")
        XCTAssertEqual(server.requests(to: "/orders").count, 3)
    }

    func testADeclaredNotIdempotentPutIsNotRepeated() {
        server.route(.put, "/orders", responses: [.status(503), .text("ok")])
        let single = client().rx.request(RawText(path: "/orders", method: .put, idempotency: .notIdempotent))
        XCTAssertEqual(failure(result(of: single))?.statusCode, 503)
        XCTAssertEqual(server.requests(to: "/orders").count, 1)
    }

    func testAKeyedPostRepeatsWithTheSameKeyAndTheNextCallGetsANewOne() throws {
        server.route(.post, "/orders", responses: [.dropConnection, .status(503), .text("created"), .text("again")])
        let client = client()
        XCTAssertEqual(success(post(client, idempotency: .keyed)), "created")
        let keys = server.requests(to: "/orders").map { $0.header(Idempotency.keyHeader) }
        XCTAssertEqual(keys.count, 3)
        let key = try XCTUnwrap(keys.first ?? nil)
        XCTAssertNotNil(UUID(uuidString: key), key)
        XCTAssertEqual(Set(keys), [key], "the key changed between attempts")
        XCTAssertEqual(success(post(client, idempotency: .keyed)), "again")
        let next = server.requests(to: "/orders").last?.header(Idempotency.keyHeader)
        XCTAssertNotNil(next)
        XCTAssertNotEqual(next, key, "a new call reused the key")
    }

    func testEachSubscriptionOfAKeyedSingleIsANewCall() {
        server.route(.post, "/orders", .text("ok"))
        let single: Single<String> = client().rx.request(RawText(path: "/orders", method: .post, idempotency: .keyed))
        _ = result(of: single)
        _ = result(of: single)
        let keys = server.requests(to: "/orders").compactMap { $0.header(Idempotency.keyHeader) }
        XCTAssertEqual(keys.count, 2)
        XCTAssertEqual(Set(keys).count, 2)
    }

    func testAKeyTheRequestSetsIsKept() {
        server.route(.post, "/orders", responses: [.status(503), .text("ok")])
        let single = client().rx.request(RawText(path: "/orders", method: .post, idempotency: .keyed, headers: [Idempotency.keyHeader: "mine-1"]))
        XCTAssertEqual(success(result(of: single)), "ok")
        XCTAssertEqual(server.requests(to: "/orders").map { $0.header(Idempotency.keyHeader) }, ["mine-1", "mine-1"])
    }

    func testUnkeyedRequestsCarryNoKey() {
        server.route(.post, "/orders", .text("ok"))
        XCTAssertEqual(success(post(client())), "ok")
        XCTAssertNil(server.requests.last?.header(Idempotency.keyHeader))
    }

    func testRequestObjectTakesADeclarationToo() {
        server.route(.post, "/orders", responses: [.status(503), .json(#"{"id":1,"name":"x"}"#)])
        let single: Single<User> = client().rx.requestObject(path: "/orders", method: .post, parameters: ["a": 1], idempotency: .keyed)
        XCTAssertEqual(success(result(of: single))?.id, 1)
        let keys = server.requests(to: "/orders").compactMap { $0.header(Idempotency.keyHeader) }
        XCTAssertEqual(keys.count, 2)
        XCTAssertEqual(Set(keys).count, 1)
    }
}
