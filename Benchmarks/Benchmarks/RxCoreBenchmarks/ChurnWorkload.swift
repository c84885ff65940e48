import Benchmark
import OpenCombine
import RxCore

// churn: just(1) → map → subscribe → dispose, Size.churn times. The chain is built inside the
// loop, as code that makes a request per call does; everything is measured.

func registerChurnWorkloads() {
    register("churn", .rxCore, events: Size.churn) { benchmark in
        var sum = 0
        for _ in 0..<Size.churn {
            let subscription = Observable.just(1)
                .map { $0 &+ 1 }
                .subscribe(onNext: { sum &+= $0 })
            subscription.dispose()
        }
        blackHole(sum)
    }

    register("churn", .openCombine, events: Size.churn) { benchmark in
        var sum = 0
        for _ in 0..<Size.churn {
            let cancellable = Just(1)
                .map { $0 &+ 1 }
                .sink { sum &+= $0 }
            cancellable.cancel()
        }
        blackHole(sum)
    }

    register("churn", .closures, events: Size.churn) { benchmark in
        var sum = 0
        for _ in 0..<Size.churn {
            ClosureSource.just(1)
                .map { $0 &+ 1 }
                .subscribe { sum &+= $0 }
        }
        blackHole(sum)
    }
}
