import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// The example of the article "Testing your client" (RxTesting.docc): a whole client in virtual
/// time, deterministic.
final class VirtualTimeClientTests: RxTestCase {
    /// The article's block, as written there.
    private func readmeExample() -> [Recorded<Event<User>>] {
        let scheduler = TestScheduler(initialClock: 0)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/users/42", with: .json(#"{"id":42,"name":"Ada"}"#, delay: .seconds(3)))
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 2), callbackScheduler: scheduler, scheduler: scheduler),
            transport: stub)
        let observer = scheduler.start { (client.rx.requestObject(path: "/users/42") as Single<User>).asObservable() }
        return observer.events
    }

    func testTheReadmeExampleRecordsExactTicks() {
        XCTAssertEqual(readmeExample(), [.next(204, User(id: 42, name: "Ada")), .completed(204)])
    }

    func testTheReadmeExampleIsTheSameHundredTimesInAHundred() {
        let first = readmeExample()
        for run in 1..<100 {
            XCTAssertEqual(readmeExample(), first, "run \(run)")
        }
    }

    func testRetriesAndTimeOutsRunInVirtualTimeToo() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        let answers = LockedBox([StubResponse.connectionRefused(delay: .seconds(1)), .json(#"{"id":1,"name":"x"}"#, delay: .seconds(1))])
        stub.stub(where: { _ in true }, respond: { _ in answers.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] } })
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(
                timeout: 30,
                retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 5), retriesWhenReachable: false),
                callbackScheduler: scheduler, scheduler: scheduler),
            transport: stub)
        let observer = scheduler.start { (client.rx.requestObject(path: "/u") as Single<User>).asObservable() }
        // Refused at 201, waits 5 s, answered 1 s after the retry at 206.
        XCTAssertEqual(observer.events, [.next(207, User(id: 1, name: "x")), .completed(207)])
        XCTAssertEqual(stub.sentRequests.count, 2)
    }
}
