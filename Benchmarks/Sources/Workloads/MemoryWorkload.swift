import OpenCombine
import RxCore

// memory: Size.liveSubscriptions subscriptions (subject → map → subscribe) created and held,
// RxCore's in a DisposeBag, OpenCombine's in an [AnyCancellable], the floor's as closures in an
// array. The window covers only their creation, so the interposer's net requested bytes
// (malloc'd minus freed, "Malloc / free Δ (bytes)") divided by the count is the cost of one live
// subscription, container growth included. Disposal happens after the window.

let memoryWorkloads: [Workload] = [
    Workload("memory", .rxCore, events: Size.liveSubscriptions) { window in
        let subject = PublishSubject<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        var bag: DisposeBag? = DisposeBag()
        window.start()
        if let bag {
            for _ in 0..<Size.liveSubscriptions {
                subject.map { $0 &+ 1 }
                    .subscribe(onNext: { sum &+= $0 })
                    .disposed(by: bag)
            }
        }
        window.stop()
        subject.onNext(1)
        bag = nil
        return sum
    },
    Workload("memory", .openCombine, events: Size.liveSubscriptions) { window in
        let subject = PassthroughSubject<Int, Never>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        var cancellables: [AnyCancellable] = []
        window.start()
        for _ in 0..<Size.liveSubscriptions {
            subject.map { $0 &+ 1 }
                .sink { sum &+= $0 }
                .store(in: &cancellables)
        }
        window.stop()
        subject.send(1)
        cancellables.removeAll()
        return sum
    },
    Workload("memory", .closures, events: Size.liveSubscriptions) { window in
        let fanOut = ClosureFanOut<Int>()
        // One thread: the workload sends and receives on the benchmark thread.
        nonisolated(unsafe) var sum = 0
        window.start()
        for _ in 0..<Size.liveSubscriptions {
            fanOut.source()
                .map { $0 &+ 1 }
                .subscribe { sum &+= $0 }
        }
        window.stop()
        fanOut.push(1)
        fanOut.removeAll()
        return sum
    },
]
