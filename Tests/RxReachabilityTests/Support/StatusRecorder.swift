import Foundation
import RxCore
import RxReachability

/// Subscribes to a `Reachability`'s `status` and `didBecomeReachable` and records what arrives,
/// with wall-clock times, for the real-socket tests.
final class StatusRecorder: Sendable {
    let statuses = LockedBox<[(status: ReachabilityStatus, at: Date)]>([])
    let becameReachable = LockedBox<[Date]>([])

    func subscribe(to reachability: Reachability) -> Disposable {
        let statusSubscription = reachability.status.subscribe(onNext: { [statuses] status in
            statuses.mutate { $0.append((status, Date())) }
        })
        let signalSubscription = reachability.didBecomeReachable.subscribe(onNext: { [becameReachable] in
            becameReachable.mutate { $0.append(Date()) }
        })
        return Disposables.create(statusSubscription, signalSubscription)
    }

    var statusValues: [ReachabilityStatus] {
        statuses.value.map(\.status)
    }

    /// Waits until `count` statuses were recorded; returns the time the last of them arrived.
    func waitForStatus(number count: Int, timeout: TimeInterval) -> Date? {
        guard waitUntil(timeout: timeout, { statuses.value.count >= count }) else { return nil }
        return statuses.value[count - 1].at
    }
}
