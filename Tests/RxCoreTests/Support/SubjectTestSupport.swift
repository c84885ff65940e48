import Foundation
import RxCore

/// Records the events of one subscription as readable strings ("1", "error(boom)", "completed").
final class SubjectEventLog<Element>: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func record(_ event: Event<Element>) {
        let text: String
        switch event {
        case .next(let element): text = "\(element)"
        case .error(let error): text = "error(\(error))"
        case .completed: text = "completed"
        }
        lock.lock()
        entries.append(text)
        lock.unlock()
    }

    /// Subscribes to `source`, recording every event.
    func subscribe<Source: ObservableConvertibleType>(to source: Source) -> Disposable where Source.Element == Element {
        source.asObservable().subscribe { [self] event in record(event) }
    }
}

/// Calls `emit` with 0, 1, 2, ... on a thread of its own for as long as `work` runs (and at least
/// once), then returns. Race tests send from here while `concurrentPerform` subscribes and disposes,
/// so that the sender never competes with the workers for a `concurrentPerform` slot.
func emitContinuously(_ emit: @escaping @Sendable (Int) -> Void, while work: () -> Void) {
    let stop = LockedBox(false)
    let started = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        var counter = 0
        repeat {
            emit(counter)
            if counter == 0 { started.signal() }
            counter += 1
        } while !stop.value
        finished.signal()
    }
    started.wait()
    work()
    stop.mutate { $0 = true }
    finished.wait()
}
