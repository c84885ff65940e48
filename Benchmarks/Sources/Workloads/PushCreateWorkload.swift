import RxCore

// pushCreate: the push chain on an `Observable.create` source whose captured AnyObserver sends
// Size.push Ints through map → filter → map → subscribe (RxCore only: the cost of the subject in
// `push` is the difference). Only the sending loop is measured.

/// Holds the observer an `Observable.create` subscribe handler was given.
// @unchecked Sendable: set once during subscribe and read by the benchmark's one thread.
final class ObserverOutlet<Element>: @unchecked Sendable {
    var observer: AnyObserver<Element>?
}

let pushCreateWorkloads: [Workload] = [
    Workload("pushCreate", .rxCore, events: Size.push) { window in
        let outlet = ObserverOutlet<Int>()
        let source = Observable<Int>.create { observer in
            outlet.observer = observer
            return Disposables.create()
        }
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let subscription = source
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .subscribe(onNext: { sum &+= $0 })
        guard let observer = outlet.observer else { return -1 }
        window.start()
        for value in 0..<Size.push {
            observer.onNext(value)
        }
        window.stop()
        subscription.dispose()
        return sum
    },
]
