import OpenCombine
import RxCore

// push: one source → map → filter → map → subscribe; Size.push Ints pushed through it.
// Only the pushing loop is measured; subscribing and disposing happen outside the window, so
// mallocs / events is the allocations per event on the push path (target 0).

/// Holds the observer an `Observable.create` subscribe handler was given.
final class ObserverOutlet<Element> {
    var observer: AnyObserver<Element>?
}

let pushWorkloads: [Workload] = [
    Workload("push", .rxCore, events: Size.push) { window in
        let outlet = ObserverOutlet<Int>()
        let source = Observable<Int>.create { observer in
            outlet.observer = observer
            return Disposables.create()
        }
        var sum = 0
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
    Workload("push", .openCombine, events: Size.push) { window in
        let subject = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = subject
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .sink { sum &+= $0 }
        window.start()
        for value in 0..<Size.push {
            subject.send(value)
        }
        window.stop()
        cancellable.cancel()
        return sum
    },
    Workload("push", .closures, events: Size.push) { window in
        let outlet = ClosureOutlet<Int>()
        var sum = 0
        outlet.source()
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .subscribe { sum &+= $0 }
        let push = outlet.push
        window.start()
        for value in 0..<Size.push {
            push(value)
        }
        window.stop()
        return sum
    },
]
