// Runs with the package trait `Tracing` only (`swift test --traits Tracing`).
#if Tracing
import Foundation
import InMemoryTracing
import Instrumentation
import RxCore
import RxHTTP
import RxTesting
import Tracing
import XCTest

/// `TracingInterceptor` over a real transport with an in-memory tracer: one client span per call,
/// its context on every attempt (the refresh included), ended once with the call's outcome.
final class TracingIntegrationTests: LoopbackClientTestCase {
    private let tracer = InMemoryTracer()

    private func client(policy: RetryPolicy = .none, authenticator: (any Authenticator)? = nil) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: policy, interceptors: [TracingInterceptor(tracer: tracer)]),
            authenticator: authenticator
        )
    }

    func testOneClientSpanPerCallWithAnEventPerAttemptAndItsContextOnEachAttempt() throws {
        server.route(.get, "/items", responses: [.status(503), .json("[]")])
        let client = client(policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/items?page=2")))))

        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(tracer.finishedSpans.count, 1)
        XCTAssertEqual(span.operationName, "GET")
        XCTAssertEqual(span.kind, .client)
        XCTAssertNil(span.parentSpanID)
        XCTAssertEqual(span.attributes["http.request.method"]?.toSpanAttribute(), "GET")
        XCTAssertEqual(span.attributes["server.address"]?.toSpanAttribute(), "127.0.0.1")
        XCTAssertEqual(span.attributes["server.port"]?.toSpanAttribute(), .int64(Int64(server.baseURL.port ?? 0)))
        XCTAssertEqual(span.attributes["url.full"]?.toSpanAttribute(), .string(server.baseURL.absoluteString + "/items?page=2"))
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 200)
        XCTAssertEqual(span.attributes["http.request.resend_count"]?.toSpanAttribute(), 1)
        XCTAssertNil(span.attributes["error.type"])
        XCTAssertNil(span.status)
        // an event per attempt, the retried one included
        XCTAssertEqual(span.events.map(\.name), ["http.attempt", "http.attempt"])
        XCTAssertEqual(span.events.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() }, [503, 200])
        XCTAssertEqual(span.events.first?.attributes["error.type"]?.toSpanAttribute(), "503")
        // both attempts carried the span's context
        let sent = server.requests(to: "/items")
        XCTAssertEqual(sent.map { $0.header(InMemoryTracer.traceIDKey) }, [span.traceID, span.traceID])
        XCTAssertEqual(sent.map { $0.header(InMemoryTracer.spanIDKey) }, [span.spanID, span.spanID])
    }

    func testTheCallersContextIsTheParent() async throws {
        server.route(.get, "/x", .json("{}"))
        let client = client()
        let parent = try await tracer.withSpan("handler") { span -> InMemorySpanContext? in
            _ = try await client.send(Raw(path: "/x"))
            return span.spanContext
        }
        let call = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "GET" })
        XCTAssertEqual(call.parentSpanID, parent?.spanID)
        XCTAssertEqual(call.traceID, parent?.traceID)
        XCTAssertEqual(server.requests.last?.header(InMemoryTracer.traceIDKey), parent?.traceID)
    }

    func testATokenRefreshIsAChildSpanAndCarriesTheContext() throws {
        server.route(.get, "/api/me", .json("{}"))
        server.route(.post, "/oauth/token", .json(#"{"access_token":"fresh","token_type":"bearer","expires_in":3600}"#))
        let expired = OAuthCredential(accessToken: "stale", refreshToken: "r1", expiresAt: Date(timeIntervalSinceNow: -60))
        let auth = OAuthAuthenticator(
            store: InMemoryCredentialStore(expired),
            refresher: .tokenEndpoint(server.baseURL.appendingPathComponent("oauth/token"), clientID: "daemon")
        )
        let client = client(authenticator: auth)
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/api/me")))))

        XCTAssertEqual(server.requests.map(\.path), ["/oauth/token", "/api/me"])
        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.count, 2)
        let call = try XCTUnwrap(spans.first { $0.attributes["url.full"]?.toSpanAttribute() == .string(server.baseURL.absoluteString + "/api/me") })
        let refresh = try XCTUnwrap(spans.first { $0.spanID != call.spanID })
        XCTAssertEqual(refresh.operationName, "POST")
        XCTAssertEqual(refresh.parentSpanID, call.spanID)
        XCTAssertEqual(refresh.traceID, call.traceID)
        XCTAssertEqual(server.requests.first?.header(InMemoryTracer.spanIDKey), refresh.spanID)
        XCTAssertEqual(server.requests.last?.header(InMemoryTracer.spanIDKey), call.spanID)
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer fresh")
    }

    func testAFailedCallsSpanIsAnErrorAndACancelledOneEndsOnce() throws {
        server.route(.get, "/gone", .status(404))
        let client = client()
        XCTAssertEqual(failure(result(of: client.rx.request(Raw(path: "/gone"))))?.code, .unacceptableStatusCode)
        let failed = try XCTUnwrap(tracer.popFinishedSpans().first)
        XCTAssertEqual(failed.status?.code, .error)
        XCTAssertEqual(failed.attributes["error.type"]?.toSpanAttribute(), "404")
        XCTAssertEqual(failed.attributes["http.response.status_code"]?.toSpanAttribute(), 404)

        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 2))
        let call = client.rx.request(Raw(path: "/slow")).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/slow").count == 1 })
        call.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { self.tracer.finishedSpans.count == 1 })
        let cancelled = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(cancelled.attributes["error.type"]?.toSpanAttribute(), "cancelled")
        XCTAssertEqual(cancelled.events.count, 1)
        XCTAssertTrue(tracer.activeSpans.isEmpty)
    }

    func testACallRefusedAtItsStartStillHasASpan() throws {
        let client = client()
        XCTAssertNotNil(result(of: client.shutdown(gracePeriod: 0).andThen(Single.just(()))))
        XCTAssertEqual(failure(result(of: client.rx.request(Raw(path: "/x"))))?.code, .shutdown)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "shutdown")
        XCTAssertTrue(span.events.isEmpty)
        XCTAssertTrue(server.requests.isEmpty)
    }
}

private struct Raw: Request {
    typealias Response = Data
    let path: String
}
#endif
