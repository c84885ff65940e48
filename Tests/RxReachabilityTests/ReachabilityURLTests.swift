import Foundation
import RxCore
import RxReachability
import RxTesting
import XCTest

final class ReachabilityURLTests: RxTestCase {
    private func make(_ text: String) -> Reachability? {
        guard let url = URL(string: text) else {
            XCTFail("bad test URL \(text)")
            return nil
        }
        return Reachability(url: url)
    }

    func testPortDefaultsByScheme() {
        XCTAssertEqual(make("http://example.com/a")?.port, 80)
        XCTAssertEqual(make("https://example.com")?.port, 443)
        XCTAssertEqual(make("HTTPS://example.com")?.port, 443)
        XCTAssertEqual(make("ws://example.com")?.port, 80)
        XCTAssertEqual(make("wss://example.com")?.port, 443)
        XCTAssertEqual(make("https://example.com")?.host, "example.com")
    }

    func testExplicitPortWins() {
        XCTAssertEqual(make("https://example.com:8443/path")?.port, 8443)
        XCTAssertEqual(make("redis://cache.local:6379")?.port, 6379)
    }

    func testIPv6LiteralLosesItsBrackets() {
        let reachability = make("http://[::1]:8080/")
        XCTAssertEqual(reachability?.host, "::1")
        XCTAssertEqual(reachability?.port, 8080)
    }

    func testURLsWithoutHostOrKnownPortAreRejected() {
        XCTAssertNil(make("ftp://example.com/file"), "no port and a scheme without a default")
        XCTAssertNil(make("/relative/path"))
        XCTAssertNil(make("file:///etc/hosts"))
        XCTAssertNil(make("http://example.com:0/"))
    }

    func testIntervalsAreSanitized() {
        let reachability = Reachability(host: "h", port: 1, probeInterval: -1, timeout: .nan, unreachableProbeInterval: 0)
        XCTAssertEqual(reachability.probeInterval, 0.001)
        XCTAssertEqual(reachability.timeout, 0.001)
        XCTAssertEqual(reachability.unreachableProbeInterval, 0.001)
        let defaults = Reachability(host: "h", port: 1, probeInterval: 3)
        XCTAssertEqual(defaults.unreachableProbeInterval, 0.5, "defaults to the recovery interval, as the client's")
        XCTAssertEqual(Reachability(host: "h", port: 1, probeInterval: 0.2).unreachableProbeInterval, 0.2, "or probeInterval if shorter")
        XCTAssertEqual(defaults.timeout, 2)
        XCTAssertFalse(defaults.isProbing, "nothing probes before a subscription")
    }
}

/// Absurd probe intervals and time-outs are clamped, never a trap.
final class ReachabilityIntervalBoundsTests: RxTestCase {
    func testAbsurdIntervalsAreClamped() {
        for interval in [Double.nan, -1, .infinity, 1e300, -.infinity, 9.3e15] {
            let reachability = Reachability(host: "127.0.0.1", port: 9, probeInterval: interval, timeout: interval, unreachableProbeInterval: interval)
            XCTAssertFalse(reachability.probeInterval.isNaN)
            XCTAssertGreaterThan(reachability.probeInterval, 0)
            reachability.status.subscribe().dispose()
        }
    }
}
