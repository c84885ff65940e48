import Foundation
import RxCore
import RxTesting
import XCTest

/// `debug(_:)` passes everything through unchanged, disposal included, in virtual time.
final class DebugTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testEventsPassThroughUnchanged() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)] as [Recorded<Event<Int>>])
        let observer = scheduler.start { source.asObservable().debug("numbers") }
        XCTAssertEqual(observer.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 230)])
    }

    func testErrorsAndDisposalPassThrough() {
        struct Boom: Error, Equatable {}
        let failing = scheduler.createHotObservable([.error(250, Boom())] as [Recorded<Event<Int>>])
        let observer = scheduler.start { failing.asObservable().debug(trimOutput: true) }
        XCTAssertEqual(observer.events.count, 1)
        let fresh = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let endless = fresh.createHotObservable([.next(300, 1)] as [Recorded<Event<Int>>])
        _ = fresh.start(created: 400, subscribed: 500, disposed: 600) { endless.asObservable().debug("cut") }
        XCTAssertEqual(endless.subscriptions, [Subscription(500, 600)])
    }

    func testSingleDebugKeepsTheSingle() {
        let observer = scheduler.start { Single.just(5).debug("five").asObservable() }
        XCTAssertEqual(observer.events, [.next(200, 5), .completed(200)])
    }
}
