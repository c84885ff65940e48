import Dispatch
import RxCore
import RxTesting
import XCTest

/// The bag keeps class disposables as they are and boxes value-type ones: all of them are disposed,
/// once each, in insertion order, when the bag goes away.
final class DisposeBagTests: RxTestCase {
    func testDisposesClassAndValueDisposablesOnceEachInInsertionOrder() {
        let log = DisposeLog()
        var bag: DisposeBag? = DisposeBag()
        if let bag {
            Disposables.create { log.record("closure 1") }.disposed(by: bag)
            ValueDisposable("value 2", log: log).disposed(by: bag)
            Observable<Int>.never()
                .subscribe(onDisposed: { log.record("subscription 3") })
                .disposed(by: bag)
            bag.insert(ValueDisposable("value 4", log: log))
            bag.insert(Disposables.create { log.record("closure 5") })
        }
        XCTAssertEqual(log.count, 0, "the bag disposed something while alive")
        bag = nil
        XCTAssertEqual(log.names, ["closure 1", "value 2", "subscription 3", "value 4", "closure 5"])
    }

    func testVariadicInsertKeepsMixedDisposablesInOrder() {
        let log = DisposeLog()
        var bag: DisposeBag? = DisposeBag()
        bag?.insert(
            ValueDisposable("value 1", log: log),
            Disposables.create { log.record("closure 2") },
            ValueDisposable("value 3", log: log),
            Disposables.create()
        )
        XCTAssertEqual(log.count, 0)
        bag = nil
        XCTAssertEqual(log.names, ["value 1", "closure 2", "value 3"])
    }

    func testConcurrentInsertsOfMixedDisposablesAreAllDisposedOnce() {
        let log = DisposeLog()
        let perThread = 200
        let threads = 8
        var bag: DisposeBag? = DisposeBag()
        if let bag {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in 0..<perThread {
                    let name = "\(thread).\(index)"
                    if index.isMultiple(of: 2) {
                        bag.insert(ValueDisposable(name, log: log))
                    } else {
                        bag.insert(Disposables.create { log.record(name) })
                    }
                }
            }
        }
        XCTAssertEqual(log.count, 0)
        bag = nil
        let names = log.names
        XCTAssertEqual(names.count, threads * perThread)
        XCTAssertEqual(Set(names).count, threads * perThread, "a disposable was disposed twice")
    }
}
