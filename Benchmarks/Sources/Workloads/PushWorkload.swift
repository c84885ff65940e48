import OpenCombine
import RxCore

// push: a subject → map → filter → map → subscribe; Size.push Ints sent through it (issue 5's
// definition; pushCreate is the same chain on Observable.create, RxCore only).
// Only the sending loop is measured, so mallocs / events is the allocations per event on the
// push path (target 0).

let pushWorkloads: [Workload] = [
    Workload("push", .rxCore, events: Size.push) { window in
        let subject = PublishSubject<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let subscription = subject
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .subscribe(onNext: { sum &+= $0 })
        window.start()
        for value in 0..<Size.push {
            subject.onNext(value)
        }
        window.stop()
        subscription.dispose()
        return sum
    },
    Workload("push", .openCombine, events: Size.push) { window in
        let subject = PassthroughSubject<Int, Never>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
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
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
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
