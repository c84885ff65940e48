import OpenCombine
import RxCore

// flatMap: Size.flatMap elements sent through a subject, each flat-mapped into `just`.
// Only the sending loop is measured (it includes each inner subscription).

let flatMapWorkloads: [Workload] = [
    Workload("flatMap", .rxCore, events: Size.flatMap) { window in
        let subject = PublishSubject<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let subscription = subject
            .flatMap { Observable.just($0 &+ 1) }
            .subscribe(onNext: { sum &+= $0 })
        window.start()
        for value in 0..<Size.flatMap {
            subject.onNext(value)
        }
        window.stop()
        subscription.dispose()
        return sum
    },
    Workload("flatMap", .openCombine, events: Size.flatMap) { window in
        let subject = PassthroughSubject<Int, Never>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let cancellable = subject
            .flatMap { Just($0 &+ 1) }
            .sink { sum &+= $0 }
        window.start()
        for value in 0..<Size.flatMap {
            subject.send(value)
        }
        window.stop()
        cancellable.cancel()
        return sum
    },
    Workload("flatMap", .closures, events: Size.flatMap) { window in
        let outlet = ClosureOutlet<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        outlet.source()
            .flatMap { ClosureSource.just($0 &+ 1) }
            .subscribe { sum &+= $0 }
        let push = outlet.push
        window.start()
        for value in 0..<Size.flatMap {
            push(value)
        }
        window.stop()
        return sum
    },
]
