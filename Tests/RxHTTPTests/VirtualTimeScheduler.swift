import Foundation
import RxCore

/// A minimal virtual-time scheduler for StubTransport tests (TestScheduler lives in RxTesting on
/// main later): actions run when `advance(by:)` passes their due time, on the calling thread.
// @unchecked Sendable: all mutable state is only touched under `lock`.
final class VirtualTimeScheduler: SchedulerType, @unchecked Sendable {
    private struct Item {
        let id: Int
        let due: Double
        let run: () -> Void
    }

    private let lock = NSLock()
    private var clock: Double = 0
    private var items: [Item] = []
    private var nextID = 0

    var now: Date {
        Date(timeIntervalSince1970: lock.withLock { clock })
    }

    var pendingCount: Int {
        lock.withLock { items.count }
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .zero, action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let id = lock.withLock { () -> Int in
            nextID += 1
            items.append(Item(id: nextID, due: clock + max(0, dueTime.timeInterval)) { _ = action(state) })
            return nextID
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.items.removeAll { $0.id == id } }
        }
    }

    func advance(by seconds: Double) {
        let target = lock.withLock { clock + seconds }
        while true {
            let next = lock.withLock { () -> Item? in
                guard let item = items.filter({ $0.due <= target }).min(by: { ($0.due, $0.id) < ($1.due, $1.id) }) else {
                    return nil
                }
                items.removeAll { $0.id == item.id }
                clock = item.due
                return item
            }
            guard let next else { break }
            next.run()
        }
        lock.withLock { clock = target }
    }
}
