import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

/// DEBUG builds report an `Observable.create` source that sends events from two threads at once.
final class SerializationCheckTests: RxTestCase {
    func testEventsFromTwoThreadsAtOnceAreReported() throws {
        try XCTSkipUnless(Resources.isCounting, "the check exists in DEBUG builds only")
        let before = Resources.serializationViolations
        let insideFirst = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let observerBox = LockedBox<AnyObserver<Int>?>(nil)
        let subscription = Observable<Int>.create { observer in
            observerBox.mutate { $0 = observer }
            return Disposables.create()
        }
        .subscribe(onNext: { value in
            if value == 1 {
                insideFirst.signal()
                releaseFirst.wait()
            }
        })
        let observer = try XCTUnwrap(observerBox.value)
        let first = DispatchGroup()
        DispatchQueue.global().async(group: first) { observer.onNext(1) }
        insideFirst.wait()
        observer.onNext(2)   // while the first thread is still inside the observer
        releaseFirst.signal()
        first.wait()
        subscription.dispose()
        observerBox.mutate { $0 = nil }
        XCTAssertEqual(Resources.serializationViolations, before + 1)
    }

    func testReentrantAndSequentialEventsAreNotReported() {
        let before = Resources.serializationViolations
        let observerBox = LockedBox<AnyObserver<Int>?>(nil)
        let source = Observable<Int>.create { observer in
            observerBox.mutate { $0 = observer }
            return Disposables.create()
        }
        nonisolated(unsafe) var received: [Int] = []
        let subscription = source.subscribe(onNext: { value in
            received.append(value)
            // Re-entrant: the observer makes its own source emit again, on the same thread.
            if value == 1 { observerBox.value?.onNext(2) }
        })
        observerBox.value?.onNext(1)
        let queue = DispatchQueue(label: "serial")
        queue.sync { observerBox.value?.onNext(3) }
        queue.sync { observerBox.value?.onNext(4) }
        subscription.dispose()
        observerBox.mutate { $0 = nil }   // the observer's handler holds the box: break the cycle
        XCTAssertEqual(received, [1, 2, 3, 4])
        XCTAssertEqual(Resources.serializationViolations, before)
    }
}
