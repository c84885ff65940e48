import RxCore
import RxTesting
import XCTest

extension RxTestCase {
    /// Subscribes to `make()` at the scheduler's current tick, runs the clock to `tick` (where the
    /// operator must be waiting on a timer), disposes, and asserts that every resource the
    /// subscription created is gone at once and that nothing is delivered afterwards.
    func assertDisposingWhileWaiting<Element>(
        at tick: TestTime,
        on scheduler: TestScheduler,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ make: () -> Observable<Element>
    ) {
        let observer = scheduler.createObserver(Element.self)
        let before = Resources.total
        var subscription: Disposable? = make().subscribe(observer)
        scheduler.advanceTo(tick)
        if Resources.isCounting {
            XCTAssertGreaterThan(Resources.total, before, "nothing is waiting: the test proves nothing", file: file, line: line)
        }
        subscription?.dispose()
        subscription = nil
        XCTAssertEqual(Resources.total, before, "disposing must cancel the timer and release the sink", file: file, line: line)
        let delivered = observer.events.count
        scheduler.start()
        XCTAssertEqual(observer.events.count, delivered, "an event was delivered after dispose", file: file, line: line)
    }
}
