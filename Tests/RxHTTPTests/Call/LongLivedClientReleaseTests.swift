import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// One client for the whole test, as a daemon has one for months: hundreds of calls disposed 0–3 ms
/// after they start — in flight, mid-redirect, waiting to retry, held by a cooldown, waiting for a
/// token refresh, streaming — leave nothing behind. Descriptors and `Resources.total` come back to
/// their baseline within a few seconds.
final class LongLivedClientReleaseTests: LoopbackClientTestCase {
    override var resourceSettleTimeout: TimeInterval { 5 }

    private struct Status: Decodable { let ok: Bool }

    private struct Probe: Request {
        typealias Response = String
        var path: String
        var requiresAuthentication: Bool
    }

    private struct Export: Request {
        typealias Response = Data
        var path: String { "/stream" }
        var requiresAuthentication: Bool { false }
    }

    private struct OneShot: RetryableRequest {
        typealias Response = String
        var path: String
        var requiresAuthentication: Bool { false }
        var retryPolicy: RetryPolicy { .none }
    }

    private var client: HTTPClient!
    private var authenticator: OAuthAuthenticator!

    /// The routes, and the one client with its authenticator.
    private func makeDaemonClient() {
        server.route(.get, "/ok", .json(#"{"ok":true}"#))
        server.route(.get, "/hop", LoopbackHTTPResponse.status(302).withHeader("Location", "/hop2"))
        server.route(.get, "/hop2", LoopbackHTTPResponse.status(307).withHeader("Location", "/ok"))
        server.route(.get, "/busy", .status(503))
        server.route(.get, "/slowdown", LoopbackHTTPResponse.status(429).withHeader("Retry-After", "1"))
        server.route(.get, "/stream", .stream([.text("a"), .pause(0.05), .text("b"), .pause(0.05), .text("c")]))
        // The refresh takes 20 ms, so calls disposed 0–3 ms after they start leave while it runs.
        authenticator = OAuthAuthenticator(
            store: InMemoryCredentialStore(OAuthCredential(accessToken: "t0", refreshToken: "r0")),
            refresher: .custom { old in
                Single.just(OAuthCredential(accessToken: old.accessToken + "+", refreshToken: "r"))
                    .delay(.milliseconds(20), scheduler: ConcurrentDispatchQueueScheduler.background)
            },
            maxRefreshes: 1_000
        )
        client = HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(
                timeout: 5,
                retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.05)),
                hostProtection: HostProtection(retryBudget: nil)
            ),
            authenticator: authenticator
        )
    }

    /// Subscribes to each single and disposes it 0, 1, 2 or 3 ms later.
    private func disposeSoonAfterStart<T>(_ count: Int, _ make: (Int) -> Single<T>) {
        for index in 0..<count {
            let subscription = make(index).subscribe(onSuccess: { _ in }, onFailure: { _ in })
            usleep(UInt32((index % 4) * 1_000))
            subscription.dispose()
        }
    }

    private func plain(_ path: String) -> Single<String> {
        client.rx.request(Probe(path: path, requiresAuthentication: false))
    }

    /// Waits (a few seconds at most) until descriptors and resources are back to `baseline`.
    private func assertReleased(to baseline: (descriptors: Int, resources: Int), _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(5)
        var descriptors = openDescriptorCount() ?? 0
        while Date() < deadline, descriptors > baseline.descriptors || Resources.total != baseline.resources {
            Thread.sleep(forTimeInterval: 0.02)
            descriptors = openDescriptorCount() ?? 0
        }
        XCTAssertLessThanOrEqual(descriptors, baseline.descriptors, "descriptors kept after \(what)", file: file, line: line)
        if Resources.isCounting {
            XCTAssertEqual(Resources.total, baseline.resources, "live resources kept after \(what)", file: file, line: line)
        }
    }

    func testCallsDisposedJustAfterTheyStartReleaseTheirSocketsAndObjects() throws {
        guard openDescriptorCount() != nil else { throw XCTSkip("no /proc/self/fd") }
        makeDaemonClient()
        defer { client = nil; authenticator = nil }
        // given a warmed-up client: its connection pool full, its credential refreshed once
        let warmUp = (0..<8).map { _ in plain("/ok").asObservable() }
        XCTAssertEqual(try Observable.merge(warmUp).toBlocking(timeout: 5).toArray().count, 8)
        XCTAssertNotNil(try client.rx.request(Probe(path: "/ok", requiresAuthentication: true)).toBlocking(timeout: 5).single())
        XCTAssertEqual(try client.rx.stream(Export()).toBlocking(timeout: 5).toArray().count, 3)
        // Pooled keep-alive connections (both ends) may come and go: a margin of the pool's size.
        let baseline = (descriptors: (openDescriptorCount() ?? 0) + 12, resources: Resources.total)

        for round in 1...3 {
            // when calls are disposed 0–3 ms after they start, in every phase a call can be in
            disposeSoonAfterStart(300) { _ in plain("/ok") }
            disposeSoonAfterStart(100) { _ in plain("/hop") }
            // Answered within a millisecond or so: most leave during the 50 ms wait between attempts.
            disposeSoonAfterStart(100) { _ in plain("/busy") }
            disposeSoonAfterStart(50) { _ in client.rx.stream(Export()).take(1).asSingle() }
            for _ in 0..<10 {
                try authenticator.update(OAuthCredential(accessToken: "expired", refreshToken: "r", expiresAt: Date(timeIntervalSinceNow: -60)))
                disposeSoonAfterStart(10) { _ in client.rx.request(Probe(path: "/ok", requiresAuthentication: true)) }
            }
            if round == 3 {
                // A 429 with Retry-After pauses the host for a second: the next calls wait in it.
                XCTAssertThrowsError(try client.rx.request(OneShot(path: "/slowdown")).toBlocking(timeout: 5).single())
                disposeSoonAfterStart(100) { _ in plain("/ok") }
            }
            // then nothing of them is left
            assertReleased(to: baseline, "round \(round)")
        }
    }
}
