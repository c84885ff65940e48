import OpenCombine
import RxCore

// zip: two subjects zipped, Size.zip pairs (each side sends Size.zip elements, alternately).
// Only the sending loop is measured.

let zipWorkloads: [Workload] = [
    Workload("zip", .rxCore, events: Size.zip) { window in
        let left = PublishSubject<Int>()
        let right = PublishSubject<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let subscription = Observable.zip(left, right)
            .subscribe(onNext: { sum &+= $0.0 &+ $0.1 })
        window.start()
        for value in 0..<Size.zip {
            left.onNext(value)
            right.onNext(value)
        }
        window.stop()
        subscription.dispose()
        return sum
    },
    Workload("zip", .openCombine, events: Size.zip) { window in
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let cancellable = left.zip(right)
            .sink { sum &+= $0.0 &+ $0.1 }
        window.start()
        for value in 0..<Size.zip {
            left.send(value)
            right.send(value)
        }
        window.stop()
        cancellable.cancel()
        return sum
    },
    Workload("zip", .closures, events: Size.zip) { window in
        let zipper = ClosureZip<Int, Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        zipper.downstream = { sum &+= $0.0 &+ $0.1 }
        window.start()
        for value in 0..<Size.zip {
            zipper.pushLeft(value)
            zipper.pushRight(value)
        }
        window.stop()
        return sum
    },
]
