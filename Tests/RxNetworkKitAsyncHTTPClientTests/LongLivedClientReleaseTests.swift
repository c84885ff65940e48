// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// One client per transport for the whole test, as a daemon has: calls and streams disposed 0–3 ms
/// after they start (in flight, answered at that moment, mid-redirect) leave no socket and no
/// object behind, on either transport.
final class LongLivedClientReleaseTests: TransportTestCase {
    override var resourceSettleTimeout: TimeInterval { 5 }

    private struct Export: Request {
        typealias Response = Data
        var path: String { "/stream" }
    }

    private func openDescriptorCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
    }

    private func disposeSoonAfterStart<T>(_ count: Int, _ make: (Int) -> Single<T>) {
        for index in 0..<count {
            let subscription = make(index).subscribe(onSuccess: { _ in }, onFailure: { _ in })
            usleep(UInt32((index % 4) * 1_000))
            subscription.dispose()
        }
    }

    func testCallsDisposedJustAfterTheyStartReleaseTheirSocketsAndObjects() throws {
        guard openDescriptorCount() != nil else { throw XCTSkip("no /proc/self/fd") }
        server.route(.get, "/ok", .json(#"{"id":1,"name":"ok"}"#))
        server.route(.get, "/hop", LoopbackHTTPResponse.status(302).withHeader("Location", "/ok"))
        server.route(.get, "/stream", .stream([.text("a"), .pause(0.05), .text("b")]))
        for kind in TransportKind.allCases {
            // given a warmed-up client (its pool of connections open)
            let client = makeClient(kind)
            let warmUp = (0..<8).map { _ in client.rx.request(RawText(path: "/ok")).asObservable() }
            XCTAssertEqual(try Observable.merge(warmUp).toBlocking(timeout: 5).toArray().count, 8, "\(kind)")
            XCTAssertEqual(try client.rx.stream(Export()).toBlocking(timeout: 5).toArray().count, 2, "\(kind)")
            // A margin for pooled keep-alive connections (both ends).
            let baseline = (descriptors: (openDescriptorCount() ?? 0) + 12, resources: Resources.total)
            for round in 1...3 {
                // when hundreds of calls are disposed 0–3 ms after they start
                disposeSoonAfterStart(300) { _ in client.rx.request(RawText(path: "/ok")) }
                disposeSoonAfterStart(100) { _ in client.rx.request(RawText(path: "/hop")) }
                disposeSoonAfterStart(50) { _ in client.rx.stream(Export()).take(1).asSingle() }
                // then sockets and objects are back to the baseline within a few seconds
                let deadline = Date().addingTimeInterval(5)
                var descriptors = openDescriptorCount() ?? 0
                while Date() < deadline, descriptors > baseline.descriptors || Resources.total != baseline.resources {
                    Thread.sleep(forTimeInterval: 0.02)
                    descriptors = openDescriptorCount() ?? 0
                }
                XCTAssertLessThanOrEqual(descriptors, baseline.descriptors, "\(kind): descriptors kept after round \(round)")
                if Resources.isCounting {
                    XCTAssertEqual(Resources.total, baseline.resources, "\(kind): live resources kept after round \(round)")
                }
            }
        }
    }
}
#endif
