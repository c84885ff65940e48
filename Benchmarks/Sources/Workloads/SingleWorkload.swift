import OpenCombine
import RxCore

// Single: Single.create → map → subscribe, Size.single times (OpenCombine: Future → map → sink).
// The chain is built inside the loop, as a request per call is; the whole loop is measured.

let singleWorkloads: [Workload] = [
    Workload("single", .rxCore, events: Size.single) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.single {
            let subscription = Single<Int>.create { single in
                single(.success(1))
                return Disposables.create()
            }
            .map { $0 &+ 1 }
            .subscribe(onSuccess: { sum &+= $0 })
            subscription.dispose()
        }
        window.stop()
        return sum
    },
    Workload("single", .openCombine, events: Size.single) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.single {
            let cancellable = Future<Int, Error> { promise in promise(.success(1)) }
                .map { $0 &+ 1 }
                .sink(receiveCompletion: { _ in }, receiveValue: { sum &+= $0 })
            cancellable.cancel()
        }
        window.stop()
        return sum
    },
    Workload("single", .closures, events: Size.single) { window in
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.single {
            ClosureSingle<Int> { $0(.success(1)) }
                .map { $0 &+ 1 }
                .run { result in
                    if case .success(let value) = result { sum &+= value }
                }
        }
        window.stop()
        return sum
    },
]
