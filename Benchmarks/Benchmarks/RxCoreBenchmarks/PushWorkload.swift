import Benchmark
import OpenCombine
import RxCore

// push: one source → map → filter → map → subscribe; Size.push Ints pushed through it.
// Only the pushing loop is measured; subscribing and disposing happen outside the window, so
// mallocCountTotal / events is the allocations per event on the push path (target 0).

/// Holds the observer an `Observable.create` subscribe handler was given.
final class ObserverOutlet<Element> {
    var observer: AnyObserver<Element>?
}

func registerPushWorkloads() {
    register("push", .rxCore, events: Size.push) { benchmark in
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
        guard let observer = outlet.observer else { return benchmark.error("create handler did not run") }
        benchmark.startMeasurement()
        for value in 0..<Size.push {
            observer.onNext(value)
        }
        benchmark.stopMeasurement()
        subscription.dispose()
        blackHole(sum)
    }

    register("push", .openCombine, events: Size.push) { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = subject
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .sink { sum &+= $0 }
        benchmark.startMeasurement()
        for value in 0..<Size.push {
            subject.send(value)
        }
        benchmark.stopMeasurement()
        cancellable.cancel()
        blackHole(sum)
    }

    register("push", .closures, events: Size.push) { benchmark in
        let outlet = ClosureOutlet<Int>()
        var sum = 0
        outlet.source()
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .subscribe { sum &+= $0 }
        let push = outlet.push
        benchmark.startMeasurement()
        for value in 0..<Size.push {
            push(value)
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }
}
