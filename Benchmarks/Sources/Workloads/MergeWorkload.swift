import OpenCombine
import RxCore

// merge: Size.mergeSources subjects merged; Size.merge events in all, sent round-robin.
// Only the sending loop is measured.

let mergeWorkloads: [Workload] = [
    Workload("merge", .rxCore, events: Size.merge) { window in
        let subjects = (0..<Size.mergeSources).map { _ in PublishSubject<Int>() }
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let subscription = Observable.merge(subjects.map { $0.asObservable() })
            .subscribe(onNext: { sum &+= $0 })
        window.start()
        for value in 0..<Size.merge {
            subjects[value % Size.mergeSources].onNext(value)
        }
        window.stop()
        subscription.dispose()
        return sum
    },
    Workload("merge", .openCombine, events: Size.merge) { window in
        let subjects = (0..<Size.mergeSources).map { _ in PassthroughSubject<Int, Never>() }
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        // OpenCombine 0.14 has no Merge/MergeMany; flatMap over the sequence of subjects is the
        // same merge (unlimited demand, every inner publisher subscribed at once).
        let cancellable = subjects.publisher
            .flatMap { $0 }
            .sink { sum &+= $0 }
        window.start()
        for value in 0..<Size.merge {
            subjects[value % Size.mergeSources].send(value)
        }
        window.stop()
        cancellable.cancel()
        return sum
    },
    Workload("merge", .closures, events: Size.merge) { window in
        // A merge of closures is every source calling the same downstream.
        let outlets = (0..<Size.mergeSources).map { _ in ClosureOutlet<Int>() }
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        let downstream: (Int) -> Void = { sum &+= $0 }
        for outlet in outlets {
            outlet.source().subscribe(downstream)
        }
        window.start()
        for value in 0..<Size.merge {
            outlets[value % Size.mergeSources].push(value)
        }
        window.stop()
        return sum
    },
]
