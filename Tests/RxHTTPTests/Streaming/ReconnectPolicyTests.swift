import Foundation
@_spi(TransportSupport) @testable import RxHTTP
import XCTest

/// The one reconnect rule event streams and WebSockets share (`ReconnectPolicy.wait`).
final class ReconnectPolicyTests: XCTestCase {
    private let policy = ReconnectPolicy(delay: .exponential(initial: 1, multiplier: 2, maxDelay: 30), jitter: .none,
                                         maxReconnects: 4, deadline: 60)

    func testTheDelayGrowsPerReconnectInARowUpToMaxReconnects() {
        XCTAssertEqual((1...4).map { policy.wait(beforeReconnect: $0, retryAfter: nil, elapsed: 0) }, [1, 2, 4, 8])
        XCTAssertNil(policy.wait(beforeReconnect: 5, retryAfter: nil, elapsed: 0), "past maxReconnects: stop")
        XCTAssertNil(ReconnectPolicy.never.wait(beforeReconnect: 1, retryAfter: nil, elapsed: 0))
        XCTAssertEqual(ReconnectPolicy(jitter: .none).wait(beforeReconnect: 1_000, retryAfter: nil, elapsed: nil), 30, "no limit; capped delay")
    }

    func testTheServersWaitReplacesTheDelayAndRetryAfterRaisesIt() {
        XCTAssertEqual(policy.wait(beforeReconnect: 3, serverDelay: 0.25, retryAfter: nil, elapsed: 0), 0.25, "an event stream's retry:")
        XCTAssertEqual(policy.wait(beforeReconnect: 1, retryAfter: 7, elapsed: 0), 7, "a Retry-After longer than the delay")
        XCTAssertEqual(policy.wait(beforeReconnect: 4, retryAfter: 3, elapsed: 0), 8, "never shortened by one")
        XCTAssertEqual(policy.wait(beforeReconnect: 1, serverDelay: .infinity, retryAfter: nil, elapsed: nil), TimeoutBounds.clampedWait(TimeInterval.infinity),
                       "a server's absurd wait is bounded")
    }

    func testAWaitThatWouldEndPastTheDeadlineIsNotStarted() {
        XCTAssertEqual(policy.wait(beforeReconnect: 2, retryAfter: nil, elapsed: 57), 2)
        XCTAssertNil(policy.wait(beforeReconnect: 2, retryAfter: nil, elapsed: 59))
        XCTAssertEqual(policy.wait(beforeReconnect: 2, retryAfter: nil, elapsed: nil), 2, "no start known: no deadline to pass")
    }
}
