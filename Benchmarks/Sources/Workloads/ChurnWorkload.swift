import OpenCombine
import RxCore

// churn: just(1) → map → subscribe → dispose, Size.churn times. The chain is built inside the
// loop, as code that makes a request per call does; the whole loop is measured.

let churnWorkloads: [Workload] = [
    Workload("churn", .rxCore, events: Size.churn) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.churn {
            let subscription = Observable.just(1)
                .map { $0 &+ 1 }
                .subscribe(onNext: { sum &+= $0 })
            subscription.dispose()
        }
        window.stop()
        return sum
    },
    Workload("churn", .openCombine, events: Size.churn) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.churn {
            let cancellable = Just(1)
                .map { $0 &+ 1 }
                .sink { sum &+= $0 }
            cancellable.cancel()
        }
        window.stop()
        return sum
    },
    Workload("churn", .closures, events: Size.churn) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.churn {
            ClosureSource.just(1)
                .map { $0 &+ 1 }
                .subscribe { sum &+= $0 }
        }
        window.stop()
        return sum
    },
]
