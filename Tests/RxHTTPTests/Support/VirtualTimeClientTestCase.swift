import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Base of the tests that run a whole client in virtual time (one tick is one second): a
/// `StubTransport` on the test's scheduler, which is also the client's clock and callback scheduler.
class VirtualTimeClientTestCase: RxTestCase {
    let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    lazy var stub = StubTransport(scheduler: scheduler)
    let hostA = URL(string: "https://a.test")!

    func client(
        _ protection: HostProtection = HostProtection(),
        policy: RetryPolicy = RetryPolicy(maxAttempts: 3, delay: .constant(time: 1))
    ) -> HTTPClient {
        var policy = policy
        policy.retriesWhenReachable = false
        return HTTPClient(
            baseURL: hostA,
            configuration: .init(retryPolicy: policy, callbackScheduler: scheduler, hostProtection: protection, scheduler: scheduler),
            transport: stub
        )
    }

    /// Answers `path` with `responses` in turn, the last one repeating.
    func script(_ path: String, _ responses: [StubResponse]) {
        let queue = LockedBox(responses)
        stub.stub(where: { $0.url?.path == path }, respond: { _ in queue.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] } })
    }

    /// Subscribes at `time`, collecting the outcome and when it arrived.
    func call(_ single: Single<String>, at time: TestTime, into outcomes: LockedBox<[(TestTime, String)]>) {
        _ = scheduler.scheduleAt(time) { [scheduler] in
            _ = single.subscribe(
                onSuccess: { value in outcomes.mutate { $0.append((scheduler.clock, value)) } },
                onFailure: { error in outcomes.mutate { $0.append((scheduler.clock, "\((error as? HTTPClientError)?.code.rawValue ?? "?")")) } }
            )
        }
    }

    func sends(_ path: String, host: String = "a.test") -> Int {
        stub.sentRequests.filter { $0.url?.path == path && $0.url?.host == host }.count
    }

}
